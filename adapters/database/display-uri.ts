/**
 * Masks the password of a connection string so it can be logged.
 *
 * @example
 * displayUri("mongodb://app:s3cret@db:27017/app"); // "mongodb://app:****@db:27017/app"
 */
export function displayUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^:/@]+):[^@]*@/, "$1:****@");
}
