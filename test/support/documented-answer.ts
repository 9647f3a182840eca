import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Document = { paths: Record<string, Record<string, unknown>> };

/**
 * Whether a real answer is one the OpenAPI document promises for that operation: its status is
 * listed and its JSON body validates against that response's schema (a response documented
 * without content, such as a 204, promises an empty body). Returns the problem, or undefined when
 * the document is right.
 *
 * @example
 * t.is(documentedAnswerProblem(document, "post", "/todos", await request(http).post("/todos").send({})), undefined);
 */
export function documentedAnswerProblem(document: Document, method: string, path: string, answer: { status: number; body: unknown }): string | undefined {
  const responses = (document.paths[path]?.[method] as { responses?: Record<string, { $ref?: string; content?: unknown }> } | undefined)?.responses;
  if (!responses) return `${method.toUpperCase()} ${path} is not documented`;
  const response = responses[String(answer.status)];
  if (!response) return `${method.toUpperCase()} ${path} does not document ${answer.status} (only ${Object.keys(responses).join(", ")})`;
  if (!response.$ref && response.content === undefined) {
    const empty = answer.body === undefined || answer.body === "" || (typeof answer.body === "object" && answer.body !== null && Object.keys(answer.body).length === 0);
    return empty ? undefined : `${answer.status} is documented without content, but the answer has a body: ${JSON.stringify(answer.body)}`;
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, "doc");
  const escaped = (text: string) => text.replace(/~/g, "~0").replace(/\//g, "~1");
  const where = response.$ref ? response.$ref.slice(1) : `/paths/${escaped(path)}/${method}/responses/${answer.status}`;
  const validate = ajv.compile({ $ref: `doc#${where}/content/application~1json/schema` });
  return validate(answer.body) ? undefined : `${answer.status} ${JSON.stringify(answer.body)}: ${ajv.errorsText(validate.errors)}`;
}
