import test from "ava";
import { generateModel, type GenerateModelArgs } from "./generate-model.js";
import { generateRoute } from "./generate-route.js";
import { installAdmin } from "./install-admin.js";
import { validateModelSchema } from "./validate-model-schema.js";

const code = (outcome: { text: string } | { errors: string[] }): string => {
  if ("errors" in outcome) throw new Error(outcome.errors.join("; "));
  return /```\w*\n([\s\S]*?)\n```/.exec(outcome.text)![1]!;
};

const FIELDS: GenerateModelArgs["fields"] = [
  { name: "title", type: "String", required: true, description: "Title" },
  { name: "count", type: "Number", default: "3" },
  { name: "flag", type: "Boolean", default: "true" },
  { name: "when", type: "Date", default: "2024-06-01" },
  { name: "parentId", type: "ObjectId", ref: "Folder", description: "The parent" },
];

// Every combination of the three switches gives a schema svc's own checker accepts without a
// warning, with exactly the plugins asked for.
for (const hasOwner of [false, true]) {
  for (const softDelete of [false, true]) {
    for (const timestamps of [false, true]) {
      test(`generated model (owner ${hasOwner}, soft delete ${softDelete}, timestamps ${timestamps}) passes svc_validate_model_schema`, (t) => {
        const source = code(generateModel({ name: "Document", fields: FIELDS, hasOwner, softDelete, timestamps }));
        const report = validateModelSchema(source);
        t.deepEqual(report.violations.filter((violation) => violation.severity !== "info"), []);
        t.is(source.includes("ownerId:"), hasOwner);
        t.is(source.includes("plugin(defaultPlugins)"), softDelete && timestamps);
        t.is(/plugin\((defaultPlugins|isDeletedPlugin)\)/.test(source), softDelete);
        t.is(/plugin\((defaultPlugins|createdUpdatedPlugin)\)/.test(source), timestamps);
        t.true(source.includes("default: 3,") && source.includes("default: true,") && source.includes('default: () => new Date("2024-06-01")'));
        t.true(source.includes('ref: "Folder", index: true'));
      });
    }
  }
}

test("route permissions: explicit levels map to the named checks; ownerFiltered defaults read/update/delete to the owner", (t) => {
  const owned = code(generateRoute({ modelName: "Note", routePath: "/notes", ownerFiltered: true }));
  t.regex(owned, /list: \[Permissions\.IsAuthenticated\][\s\S]*create: \[Permissions\.IsAuthenticated\][\s\S]*read: \[Permissions\.IsOwner\][\s\S]*update: \[Permissions\.IsOwner\][\s\S]*delete: \[Permissions\.IsOwner\]/);
  t.true(owned.includes("queryFilter: OwnerQueryFilter"));
  const open = code(generateRoute({ modelName: "Note", routePath: "/public/notes", ownerFiltered: false, permissions: { list: "any", read: "any", delete: "admin" }, populate: [{ path: "authorId" }] }));
  t.regex(open, /list: \[Permissions\.IsAny\][\s\S]*read: \[Permissions\.IsAny\][\s\S]*delete: \[Permissions\.IsAdmin\]/);
  t.false(open.includes("OwnerQueryFilter"));
  t.true(open.includes('populatePaths: [{ path: "authorId", fields: [] }]'), "a populate without fields shows only the id");
  t.deepEqual(generateRoute({ modelName: "Note", routePath: "/notes/:id", ownerFiltered: false }), { errors: ['routePath "/notes/:id" must look like /books or /library/books (lower case, no parameters)'] });
});

test("names are normalised and checked: kebab or camel model names, reserved and duplicate fields", (t) => {
  t.true(code(generateModel({ name: "book-loan", fields: FIELDS.slice(0, 1), hasOwner: false, softDelete: false, timestamps: true })).includes('mongoose.model<BookLoanFields>("BookLoan"'));
  const refused = generateModel({ name: "X", fields: [{ name: "a", type: "String" }, { name: "a", type: "String" }, { name: "created", type: "Date" }, { name: "b-c", type: "String" }, { name: "d", type: "String", ref: "User" }], hasOwner: false, softDelete: false, timestamps: true });
  t.true("errors" in refused && refused.errors.length === 4, JSON.stringify(refused));
  const admin = installAdmin({ models: [{ modelName: "Book", routePath: "/books", displayName: "Books", listFields: ["title"] }, { modelName: "Shelf", routePath: "/books", displayName: "Shelves", listFields: ["name"] }], basePath: "/admin", accessControl: true });
  t.deepEqual(admin, { errors: ["Shelf: routePath /books is used twice"] });
});
