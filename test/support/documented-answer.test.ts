import test from "ava";
import { documentedAnswerProblem } from "./documented-answer.js";

// The checker of answers against the OpenAPI document, on a document small enough to read.
const document = {
  paths: {
    "/things/{id}": {
      get: { responses: { "200": { content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data: { type: "string" } } } } } } } },
      delete: { responses: { "204": { description: "Deleted" } } },
    },
  },
};

test("a JSON answer is checked against its status's schema; an undocumented status or operation is named", (t) => {
  t.is(documentedAnswerProblem(document, "get", "/things/{id}", { status: 200, body: { data: "x" } }), undefined);
  t.regex(documentedAnswerProblem(document, "get", "/things/{id}", { status: 200, body: { data: 1 } }) ?? "", /must be string/);
  t.regex(documentedAnswerProblem(document, "get", "/things/{id}", { status: 404, body: {} }) ?? "", /does not document 404/);
  t.regex(documentedAnswerProblem(document, "put", "/things/{id}", { status: 200, body: {} }) ?? "", /is not documented/);
});

test("a status documented without content promises an empty body (a 204)", (t) => {
  t.is(documentedAnswerProblem(document, "delete", "/things/{id}", { status: 204, body: {} }), undefined);
  t.is(documentedAnswerProblem(document, "delete", "/things/{id}", { status: 204, body: "" }), undefined);
  t.regex(documentedAnswerProblem(document, "delete", "/things/{id}", { status: 204, body: { data: "x" } }) ?? "", /without content/);
});
