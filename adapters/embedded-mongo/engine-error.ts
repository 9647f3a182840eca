/**
 * The one error type the embedded engine throws. Command handlers let it propagate; the command
 * dispatcher turns it into MongoDB's reply shape `{ok: 0, errmsg, code, codeName, ...extra}` so the
 * unmodified driver raises its usual `MongoServerError` with the same `code` a real server gives.
 *
 * @example
 * throw new EngineError(ErrorCodes.NamespaceNotFound, "ns does not exist: app.todos");
 */
export class EngineError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra reply fields, e.g. `keyPattern`/`keyValue` for 11000 or `errorLabels`. */
  readonly extra: Record<string, unknown>;

  constructor(code: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = "EngineError";
    this.code = code;
    this.codeName = codeNameOf(code);
    this.extra = extra;
  }

  /** The `{ok: 0, ...}` reply body for this error. */
  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}

/**
 * MongoDB server error codes used by the engine (see the server's error_codes.yml).
 * Add codes here rather than using bare numbers so every code has its official name.
 */
export const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  NotSingleValueField: 54,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  WriteConflict: 112,
  CommandNotSupported: 115,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  TransactionTooOld: 225,
  ChangeStreamHistoryLost: 286,
  ChangeStreamFatalError: 280,
  CursorInUse: 143,
  NoMatchingDocument: 47,
  InvalidPipelineOperator: 168,
  DuplicateKey: 11000,
  Interrupted: 11601,
  UnknownError: 8,
  OperationFailed: 96,
  NotWritablePrimary: 10107,
  DocumentValidationFailure: 121,
  BSONObjectTooLarge: 10334,
  MaxTimeMSExpired: 50,
  ProtocolError: 17,
  Unauthorized: 13,
  QueryPlanKilled: 175,
  InvalidResumeToken: 260,
  ConflictingOperationInProgress: 117,
  InvalidIndexSpecificationOption: 197,
  CannotCreateIndex: 67,
  CannotIndexParallelArrays: 171,
  OperationNotSupportedInTransaction: 263,
  SnapshotUnavailable: 246,
  SnapshotTooOld: 239,
  LockTimeout: 24,
  IncompleteTransactionHistory: 217,
  CommandFailed: 125,
  NotImplemented: 238,
  IndexAlreadyExists: 68,
  InvalidUUID: 207,
  UnsatisfiableWriteConcern: 100,
  AmbiguousIndexKeyPattern: 307,
  EmptyFieldName: 56,
  ConversionFailure: 241,
  QueryFeatureNotAllowed: 224,
  GraphContainsCycle: 5,
  ViewDepthLimitExceeded: 149,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  AlreadyInitialized: 23,
  InvalidReplicaSetConfig: 93,
  FailPointSetFailed: 266,
  AuthenticationFailed: 18,
} as const;

const NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(ErrorCodes).map(([name, code]) => [code, name]),
);

function codeNameOf(code: number): string {
  return NAMES.get(code) ?? `Location${code}`;
}
