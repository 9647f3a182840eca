import { redactConnectionString } from "mongodb-connection-string-url";

/**
 * A connection string fit for logs and error messages: the password and the secret options
 * (`tlsCertificateKeyFilePassword`, `AWS_SESSION_TOKEN`, `proxyPassword`) become `****`; the user,
 * hosts, database and other options stay readable.
 *
 * The driver's own parser does the work, so a password with `@` or `/` in it is masked whole. A
 * string without a scheme is not shown at all: the driver refuses it anyway ("Invalid scheme"),
 * and where its credentials start cannot be known.
 *
 * @example
 * displayUri("mongodb://app:s3cret@db:27017/app?tls=true"); // "mongodb://app:****@db:27017/app?tls=true"
 */
export function displayUri(uri: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) return "(a connection string without mongodb://, not shown)";
  return redactConnectionString(uri, { redactUsernames: false, replacementString: "****" });
}
