import test from "ava";
import { displayUri } from "./display-uri.js";

test("masks the password and keeps the user, hosts, database and options", (t) => {
  t.is(displayUri("mongodb://app:s3cret@db:27017/app"), "mongodb://app:****@db:27017/app");
  t.is(
    displayUri("mongodb+srv://app:s3cret@cluster0.x.mongodb.net/app?retryWrites=true"),
    "mongodb+srv://app:****@cluster0.x.mongodb.net/app?retryWrites=true",
  );
  t.is(
    displayUri("mongodb://app:s3cret@db1:27017,db2:27018/app?replicaSet=rs0"),
    "mongodb://app:****@db1:27017,db2:27018/app?replicaSet=rs0",
  );
  t.is(displayUri("mongodb://db:27017/app"), "mongodb://db:27017/app");
});

test("masks secrets passed as options", (t) => {
  const tls = displayUri("mongodb://db:27017/app?tls=true&tlsCertificateKeyFilePassword=s3cretPW");
  t.false(tls.includes("s3cretPW"));
  t.true(tls.startsWith("mongodb://db:27017/app?tls=true&"));
  const aws = displayUri("mongodb://db/app?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:s3cret");
  t.false(aws.includes("s3cret"));
  t.true(aws.includes("authMechanism=MONGODB-AWS"));
  t.false(displayUri("mongodb://db/app?proxyHost=p&proxyPassword=s3cret").includes("s3cret"));
});

test("never prints a password the driver cannot parse", (t) => {
  t.is(displayUri("mongodb://app:p@ss@db/app"), "mongodb://app:****@db/app");
  t.false(displayUri("mongodb://app:pa/ss@db/app").includes("pa/ss"));
  t.false(displayUri("app:s3cret@db/app").includes("s3cret"));
  t.false(displayUri("mongodb//app:s3cret@db/app").includes("s3cret"));
});
