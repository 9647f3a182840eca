import test from "ava";
import { MongoClient, MongoServerError } from "mongodb";
import mongoose from "mongoose";
import { useFileEngine } from "../test-support/file-engine.js";

const shared = useFileEngine(test, "auth");

function withCredentials(query: string): string {
  return `mongodb://user:secret@127.0.0.1:${shared.server.port}/app?${query}`;
}

test("credentials in the URI fail the connection with AuthenticationFailed saying the engine has none", async (t) => {
  const uris = [
    withCredentials("directConnection=true"), // SCRAM-SHA-256 (the default), saslStart on the URI's database
    withCredentials(`replicaSet=${shared.server.replicaSetName}&authMechanism=SCRAM-SHA-1`),
    withCredentials("directConnection=true&authMechanism=PLAIN"), // saslStart on $external
  ];
  for (const uri of uris) {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    try {
      const error = await t.throwsAsync(client.connect(), { instanceOf: MongoServerError }, uri);
      t.is(error?.code, 18, uri);
      t.is(error?.codeName, "AuthenticationFailed", uri);
      t.regex(error?.message ?? "", /^Authentication is not supported by the embedded engine .*DB_URI.*real MongoDB$/, uri);
    } finally {
      await client.close();
    }
  }
});

test("mongoose.connect with credentials reports the same error", async (t) => {
  const connection = mongoose.createConnection();
  t.teardown(() => connection.close());
  const error = await t.throwsAsync(connection.openUri(withCredentials("directConnection=true"), { serverSelectionTimeoutMS: 5000 }));
  t.regex(error?.message ?? "", /Authentication is not supported by the embedded engine/);
});

test("X.509's authenticate command gets the same answer", async (t) => {
  const error = await t.throwsAsync(shared.client.db("$external").command({ authenticate: 1, mechanism: "MONGODB-X509" }), {
    instanceOf: MongoServerError,
  });
  t.is(error?.code, 18);
});
