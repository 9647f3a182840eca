/**
 * The embedded engine's query language library: pure, I/O-free implementations of MongoDB's BSON
 * ordering, filters, updates, projections, sorts and aggregation pipelines.
 *
 * @example
 * import { compileFilter } from "./query/index.js";
 * compileFilter({ n: { $gt: 1 } }).matches({ n: 2 }); // true
 */
export type { Collation, Document } from "./types.js";
export { bsonEquals, compareBson, equalityKey, canonicalRank, stringComparator } from "./bson-order.js";
export { bsonTypeCode, bsonTypeName, parseTypeSpec, BsonTypeCode } from "./bson-type.js";
export type { TypeSpec } from "./bson-type.js";
export { add, subtract, multiply, divide, negate, compareNumbers, numericKind, toDouble, toInt64, bsonNumber, convertNumber, toDecimal128 } from "./numeric.js";
export type { NumericKind, LongOverflow } from "./numeric.js";
export { compileFilter } from "./filter.js";
export type { Matcher, FilterOptions } from "./filter.js";
export { filterFields } from "./filter-fields.js";
export type { FieldPredicate, RangeBound } from "./filter-fields.js";
export { compileSort } from "./sort.js";
export type { CompiledSort } from "./sort.js";
export { compileJsonSchema } from "./json-schema.js";
export { toJsRegExp } from "./regex.js";
export { isDocument, getPathValue } from "./document-path.js";
export { compileUpdate } from "./update.js";
export type { CompiledUpdate, UpdateOptions, ApplyOptions, UpdateResult, UpdateDescription } from "./update.js";
export { upsertSeed } from "./upsert-seed.js";
export { describeUpdate } from "./update-description.js";
export { bsonIdentical } from "./bson-order.js";
export { compileProjection } from "./projection.js";
export type { CompiledProjection, ProjectionOptions, ProjectOptions } from "./projection.js";
export { compileExpression, isTruthy, aggCompare } from "./expression.js";
export type { CompiledExpression, EvalScope, ExpressionOptions } from "./expression.js";
export { runPipeline, compilePipeline } from "./aggregate.js";
export type { PipelineContext, PipelineResult, PipelineOutput, OutputTarget, CompiledPipeline } from "./aggregate.js";
