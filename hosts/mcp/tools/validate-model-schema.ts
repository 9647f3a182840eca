import ts from "typescript-api";

export type Severity = "error" | "warning" | "info";

/** One finding about a schema: where it is, how bad, which rule. */
export interface SchemaViolation {
  readonly severity: Severity;
  readonly rule: string;
  readonly message: string;
  /** The field path (`address.city`, `tags[]`), when the finding is about a field. */
  readonly path?: string;
  /** 1-based position in the given source. */
  readonly line: number;
  readonly column: number;
}

export interface SchemaReport {
  /** How many `new Schema(...)` constructions were analysed. */
  readonly schemas: number;
  readonly violations: readonly SchemaViolation[];
}

// Field names that usually hold "the user this record belongs to": OwnerQueryFilter and owner
// permission checks filter on them, so they need an index.
const OWNER_FIELD = /^(owner|ownerId|user|userId|createdBy|author|authorId|account|accountId)$/;
const TIMESTAMP_PLUGINS = new Set(["defaultPlugins", "createdUpdatedPlugin"]);

/**
 * `svc_validate_model_schema`: parses mongoose schema source with the TypeScript compiler API and
 * checks each `new Schema(...)` against svc's conventions — every field described (error),
 * `strict` not false (error), `toJSON`/`toObject` with virtuals (warning), no untyped `Mixed`
 * (warning), owner references indexed (warning), and hints (info). Never runs the code.
 *
 * @example
 * validateModelSchema(`const s = new Schema({ title: String });`).violations[0].rule; // "missing-description"
 */
export function validateModelSchema(source: string): SchemaReport {
  const file = ts.createSourceFile("schema.ts", source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const violations: SchemaViolation[] = [];
  const at = (node: ts.Node, severity: Severity, rule: string, message: string, path?: string): void => {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    violations.push({ severity, rule, message, ...(path ? { path } : {}), line: line + 1, column: character + 1 });
  };

  const syntax = ts.transpileModule(source, { reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022 } }).diagnostics ?? [];
  for (const diagnostic of syntax) {
    const start = diagnostic.start ?? 0;
    const { line, character } = file.getLineAndCharacterOfPosition(start);
    violations.push({ severity: "error", rule: "syntax", message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"), line: line + 1, column: character + 1 });
  }

  const constants = collectConstants(file);
  const calls = collectSchemaCalls(file);
  let schemas = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && isSchemaConstructor(node.expression)) {
      schemas++;
      analyseSchema(node, constants, calls, at);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (schemas === 0 && !syntax.length) at(file, "error", "no-schema", "No `new Schema(...)` or `new mongoose.Schema(...)` found: give the schema source.");
  const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  violations.sort((a, b) => order[a.severity] - order[b.severity] || a.line - b.line || a.column - b.column);
  return { schemas, violations };
}

type Report = (node: ts.Node, severity: Severity, rule: string, message: string, path?: string) => void;

/** What the file does to each schema variable after building it: `.plugin(x)`, `.index({...})`. */
interface SchemaCalls {
  readonly plugins: Map<string, Set<string>>;
  readonly indexed: Map<string, Set<string>>;
}

function isSchemaConstructor(expression: ts.Expression): boolean {
  if (ts.isIdentifier(expression)) return expression.text === "Schema";
  return ts.isPropertyAccessExpression(expression) && expression.name.text === "Schema";
}

function collectConstants(file: ts.SourceFile): Map<string, ts.Expression> {
  const constants = new Map<string, ts.Expression>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) constants.set(node.name.text, unwrap(node.initializer));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return constants;
}

function collectSchemaCalls(file: ts.SourceFile): SchemaCalls {
  const plugins = new Map<string, Set<string>>();
  const indexed = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, value: string): void => {
    map.set(key, (map.get(key) ?? new Set()).add(value));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
      const target = node.expression.expression.text;
      const method = node.expression.name.text;
      const first = node.arguments[0] && unwrap(node.arguments[0]);
      if (method === "plugin" && first) add(plugins, target, first.getText(file));
      if (method === "index" && first && ts.isObjectLiteralExpression(first)) {
        // Only the leading key of a compound index serves equality filters on that field alone.
        const leading = first.properties[0];
        if (leading?.name) add(indexed, target, propertyName(leading.name) ?? "");
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { plugins, indexed };
}

function analyseSchema(node: ts.NewExpression, constants: Map<string, ts.Expression>, calls: SchemaCalls, at: Report): void {
  const variable = ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name) ? node.parent.name.text : undefined;
  const [definition, options] = (node.arguments ?? []).map((argument) => resolve(unwrap(argument), constants));
  const indexed = (variable && calls.indexed.get(variable)) || new Set<string>();
  if (!definition) {
    at(node, "error", "empty-schema", "The schema declares no fields.");
  } else if (ts.isObjectLiteralExpression(definition)) {
    analyseFields(definition, "", constants, indexed, at);
  } else {
    at(definition, "info", "not-analysed", "The field definitions are not an object literal in this source, so they were not checked.");
  }

  if (!options) {
    at(node, "warning", "missing-options", 'No schema options: add { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } }.');
  } else if (ts.isObjectLiteralExpression(options)) {
    analyseOptions(options, node, at);
  } else {
    at(options, "info", "not-analysed", "The schema options are not an object literal in this source, so they were not checked.");
  }

  if (variable) {
    const plugins = calls.plugins.get(variable) ?? new Set<string>();
    if (![...plugins].some((plugin) => TIMESTAMP_PLUGINS.has(plugin))) {
      at(node, "info", "no-timestamps-plugin", `${variable} uses neither defaultPlugins nor createdUpdatedPlugin: records get no created/updated (and lists no default -created order).`);
    }
  }
}

function analyseOptions(options: ts.ObjectLiteralExpression, node: ts.Node, at: Report): void {
  const strict = property(options, "strict");
  if (!strict) at(node, "info", "strict-not-throw", 'strict is not set: mongoose silently drops unknown fields; strict: "throw" refuses them.');
  else if (strict.kind === ts.SyntaxKind.FalseKeyword) at(strict, "error", "non-strict", 'strict: false stores fields the schema does not declare: use strict: "throw".');
  else if (strict.kind === ts.SyntaxKind.TrueKeyword) at(strict, "info", "strict-not-throw", 'strict: true silently drops unknown fields; strict: "throw" refuses them.');
  else if (!(ts.isStringLiteral(strict) && strict.text === "throw")) at(strict, "warning", "strict-unknown", 'strict is not a literal: svc expects "throw".');
  for (const key of ["toJSON", "toObject"]) {
    const value = property(options, key);
    const virtuals = value && ts.isObjectLiteralExpression(value) ? property(value, "virtuals") : undefined;
    if (virtuals?.kind !== ts.SyntaxKind.TrueKeyword) at(value ?? node, "warning", "missing-virtuals", `${key} lacks virtuals: true (responses would miss the id and virtual fields).`);
  }
  const timestamps = property(options, "timestamps");
  if (timestamps && timestamps.kind !== ts.SyntaxKind.FalseKeyword) {
    at(timestamps, "info", "mongoose-timestamps", "Mongoose timestamps add createdAt/updatedAt; svc's createdUpdatedPlugin (in defaultPlugins) adds the created/updated its lists sort by.");
  }
}

function analyseFields(fields: ts.ObjectLiteralExpression, prefix: string, constants: Map<string, ts.Expression>, indexed: Set<string>, at: Report): void {
  for (const member of fields.properties) {
    const name = member.name ? propertyName(member.name) : undefined;
    if (!name) {
      at(member, "info", "not-analysed", "A computed or spread member was not checked.");
      continue;
    }
    const path = prefix + name;
    if (ts.isShorthandPropertyAssignment(member)) {
      const value = constants.get(name);
      if (value) analyseField(member, value, name, path, constants, indexed, at);
      else at(member, "error", "missing-description", `${path} has no description: write { type: ..., description: "..." }.`, path);
      continue;
    }
    if (!ts.isPropertyAssignment(member)) {
      at(member, "info", "not-analysed", `${path} is a method or accessor, not a field.`, path);
      continue;
    }
    analyseField(member, unwrap(member.initializer), name, path, constants, indexed, at);
  }
}

function analyseField(node: ts.Node, raw: ts.Expression, name: string, path: string, constants: Map<string, ts.Expression>, indexed: Set<string>, at: Report): void {
  const value = resolve(raw, constants);
  if (ts.isArrayLiteralExpression(value)) {
    // `tags: [String]` or `items: [{ ... }]`: the array itself carries no description.
    at(node, "error", "missing-description", `${path} has no description: write { type: [...], description: "..." }.`, path);
    analyseArrayElement(value, path, constants, indexed, at);
    return;
  }
  if (!ts.isObjectLiteralExpression(value)) {
    if (isMixed(value)) at(node, "warning", "untyped-mixed", `${path} is Mixed: nothing about its content is validated or documented; declare its shape.`, path);
    at(node, "error", "missing-description", `${path} has no description: write { type: ${value.getText()}, description: "..." }.`, path);
    return;
  }
  const type = property(value, "type");
  if (!type) {
    // A nested object: its members are the fields.
    analyseFields(value, `${path}.`, constants, indexed, at);
    return;
  }
  const description = property(value, "description");
  if (!description) at(node, "error", "missing-description", `${path} has no description (it flows into /openapi.json, generated types and the admin).`, path);
  else if ((ts.isStringLiteral(description) || ts.isNoSubstitutionTemplateLiteral(description)) && !description.text.trim()) {
    at(description, "error", "missing-description", `${path} has an empty description.`, path);
  }
  const typeValue = resolve(unwrap(type), constants);
  if (isMixed(typeValue)) at(type, "warning", "untyped-mixed", `${path} is Mixed: nothing about its content is validated or documented; declare its shape.`, path);
  if (ts.isArrayLiteralExpression(typeValue)) analyseArrayElement(typeValue, path, constants, indexed, at);
  const ref = property(value, "ref");
  if (ref) {
    const index = property(value, "index") ?? property(value, "unique");
    const hasIndex = (index && index.kind !== ts.SyntaxKind.FalseKeyword) || indexed.has(path);
    if (!hasIndex && OWNER_FIELD.test(name)) {
      at(node, "warning", "unindexed-owner-ref", `${path} references its owner but has no index: owner filters scan the collection. Add index: true.`, path);
    } else if (!hasIndex) {
      at(node, "info", "unindexed-ref", `${path} is a reference without an index: add index: true if lists filter or populate by it.`, path);
    }
  }
  const required = property(value, "required");
  if (required?.kind === ts.SyntaxKind.TrueKeyword && property(value, "default")) {
    at(required, "info", "required-with-default", `${path} is required and has a default: the default always satisfies required.`, path);
  }
}

function analyseArrayElement(array: ts.ArrayLiteralExpression, path: string, constants: Map<string, ts.Expression>, indexed: Set<string>, at: Report): void {
  const element = array.elements[0] && resolve(unwrap(array.elements[0]), constants);
  if (!element) {
    at(array, "warning", "untyped-mixed", `${path} is an array of Mixed ([]): declare the element type.`, path);
    return;
  }
  if (isMixed(element)) at(element, "warning", "untyped-mixed", `${path}[] is Mixed: declare the element's shape.`, path);
  if (ts.isObjectLiteralExpression(element)) {
    if (property(element, "type")) analyseField(element, element, path.split(".").at(-1)!, `${path}[]`, constants, indexed, at);
    else analyseFields(element, `${path}[].`, constants, indexed, at);
  }
}

function isMixed(node: ts.Expression): boolean {
  const text = node.getText().replace(/\s+/g, "");
  if (/(^|\.)Mixed$/.test(text) || text === "Object") return true;
  return ts.isObjectLiteralExpression(node) && node.properties.length === 0;
}

function property(object: ts.ObjectLiteralExpression, key: string): ts.Expression | undefined {
  for (const member of object.properties) {
    if (ts.isPropertyAssignment(member) && member.name && propertyName(member.name) === key) return unwrap(member.initializer);
  }
  return undefined;
}

function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

// `x as const`, `(x)`, `x satisfies T`: the value underneath.
function unwrap(node: ts.Expression): ts.Expression {
  let current = node;
  while (ts.isAsExpression(current) || ts.isParenthesizedExpression(current) || ts.isSatisfiesExpression(current) || ts.isTypeAssertionExpression(current)) current = current.expression;
  return current;
}

// A field definition kept in a local constant (`const title = {...}`) is checked where it is used.
function resolve(node: ts.Expression, constants: Map<string, ts.Expression>): ts.Expression {
  if (ts.isIdentifier(node)) {
    const value = constants.get(node.text);
    if (value && (ts.isObjectLiteralExpression(value) || ts.isArrayLiteralExpression(value))) return value;
  }
  return node;
}

/**
 * The report as the tool's text: a one-line verdict, then the violations as JSON.
 *
 * @example
 * renderSchemaReport(validateModelSchema(source));
 */
export function renderSchemaReport(report: SchemaReport): string {
  const count = (severity: Severity) => report.violations.filter((violation) => violation.severity === severity).length;
  const errors = count("error");
  const verdict = errors
    ? `${errors} error(s), ${count("warning")} warning(s), ${count("info")} info: fix the errors before using this schema with svc.`
    : `No errors; ${count("warning")} warning(s), ${count("info")} info.`;
  return `${verdict}\n\n${JSON.stringify({ valid: errors === 0, schemas: report.schemas, violations: report.violations }, null, 2)}\n`;
}
