import { LinkBase, useCreateController, useDelete, useEditController, useNavigate, useNotify, useResourceContext } from "ra-core";
import { useParams } from "react-router";
import type { AdminModel, AdminRecord } from "./api-types";
import { useAdminModel } from "./admin-context";
import { ConfirmButton } from "./confirm-button";
import { fieldLabel } from "./field-label";
import { FieldValue, recordLabel } from "./field-value";
import { editableFields } from "./form-values";
import { usePageTitle } from "./page-title";
import { RecordForm } from "./record-form";
import { SignInsPanel } from "./sign-ins-panel";
import { SetPasswordForm } from "./set-password-form";
import { LoadingPage, NotFoundPage } from "./status-pages";

/** Keys the API adds that are not the record's own data. */
const META_KEYS = new Set(["id", "__v", "_adminCapabilities"]);

export function RecordPage() {
  const resource = useResourceContext();
  const model = useAdminModel(resource);
  const { id } = useParams();
  if (!model || !id) return <NotFoundPage />;
  return <RecordPageOf key={`${model.name}/${id}`} model={model} id={id} />;
}

function BackLink({ model }: { model: AdminModel }) {
  return (
    <p className="back">
      <LinkBase to={`/${model.name}`}>
        <span aria-hidden="true">← </span>
        {model.displayName}
      </LinkBase>
    </p>
  );
}

/** The fields the form does not edit (the key, read-only and unknown ones), shown as values. */
function ReadOnlyDetails({ model, record }: { model: AdminModel; record: AdminRecord }) {
  const edited = new Set(editableFields(model, "edit").map(([name]) => name));
  const names = [...new Set([...Object.keys(model.fields), ...Object.keys(record)])].filter((name) => !edited.has(name) && !META_KEYS.has(name));
  return (
    <section aria-labelledby="details-title" className="details">
      <h2 id="details-title">Details</h2>
      <dl>
        {names.map((name) => (
          <div key={name} className="detail">
            <dt>{name === "_id" ? "Id" : fieldLabel(name)}</dt>
            <dd>
              <FieldValue field={model.fields[name]} value={record[name]} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** One record: its read-only details, the edit form, a user's password (when offered), delete. */
function RecordPageOf({ model, id }: { model: AdminModel; id: string }) {
  const notify = useNotify();
  const navigate = useNavigate();
  const controller = useEditController<AdminRecord>({
    resource: model.name,
    id,
    mutationMode: "pessimistic",
    redirect: false,
    queryOptions: {
      // The server says why (gone, not allowed); ra-core would say "does not exist" for all.
      onError: (error: Error) => notify(error.message, { type: "error" }),
    },
  });
  const { record, save, saving, isPending, error } = controller;
  const [deleteOne, { isPending: deleting }] = useDelete<AdminRecord>();
  const label = recordLabel(record);
  usePageTitle(record ? `${label} · ${model.displayName}` : model.displayName);

  if (isPending) return <LoadingPage />;
  if (error || !record) {
    return (
      <section aria-labelledby="record-title">
        <BackLink model={model} />
        <h1 id="record-title">This record cannot be shown</h1>
        <p role="alert">{error instanceof Error ? error.message : "It does not exist, or your account cannot see it."}</p>
      </section>
    );
  }

  const updateReason = model.actions.update.disabled
    ? `Your account may not change ${model.displayName.toLowerCase()}.`
    : record._adminCapabilities?.update === false
      ? "Your account may not change this record (only records it owns, or none)."
      : undefined;
  const deleteReason = model.actions.delete.disabled
    ? `Your account may not delete ${model.displayName.toLowerCase()}.`
    : record._adminCapabilities?.delete === false
      ? "Your account may not delete this record (only records it owns, or none)."
      : undefined;

  const remove = async () => {
    await deleteOne(
      model.name,
      { id: record.id, previousData: record },
      {
        mutationMode: "pessimistic",
        onSuccess: () => {
          notify(`Deleted “${label}”`, { type: "success" });
          navigate(`/${model.name}`);
        },
        onError: (failure) => notify(failure instanceof Error ? failure.message : "ra.notification.http_error", { type: "error" }),
      },
    );
  };

  return (
    <section aria-labelledby="record-title" className="record-page">
      <BackLink model={model} />
      <div className="page-heading">
        <h1 id="record-title">
          <span className="title-kind">{model.displayName}: </span>
          {label}
        </h1>
      </div>
      <ReadOnlyDetails model={model} record={record} />
      <section aria-labelledby="edit-title">
        <h2 id="edit-title">{updateReason ? "Fields" : "Edit"}</h2>
        <RecordForm model={model} mode="edit" record={record} save={(data) => save!(data)} saving={saving} disabledReason={updateReason} />
      </section>
      <SetPasswordForm model={model} record={record} label={label} />
      <SignInsPanel model={model} record={record} label={label} />
      <section aria-labelledby="delete-title" className="danger-zone">
        <h2 id="delete-title">Delete</h2>
        <ConfirmButton
          label="Delete this record"
          question={`Delete “${label}”? This cannot be undone here.`}
          confirmLabel="Yes, delete it"
          disabled={deleteReason !== undefined || deleting}
          disabledReason={deleteReason}
          onConfirm={remove}
        />
      </section>
    </section>
  );
}

export function CreatePage() {
  const resource = useResourceContext();
  const model = useAdminModel(resource);
  if (!model) return <NotFoundPage />;
  return <CreatePageOf key={model.name} model={model} />;
}

function CreatePageOf({ model }: { model: AdminModel }) {
  usePageTitle(`New · ${model.displayName}`);
  const { save, saving } = useCreateController({ resource: model.name, redirect: "edit" });
  return (
    <section aria-labelledby="create-title" className="record-page">
      <BackLink model={model} />
      <h1 id="create-title">New record: {model.displayName}</h1>
      <RecordForm model={model} mode="create" save={(data) => save!(data)} saving={saving} disabledReason={model.actions.create.disabled ? `Your account may not create ${model.displayName.toLowerCase()}.` : undefined} />
    </section>
  );
}
