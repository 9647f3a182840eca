import mongoose, { Schema, type Model } from "mongoose";

/** A delivery webhook already received (its replay key's digest), kept a week. */
export interface WebhookReceiptFields {
  key: string;
  provider: string;
  created: Date;
}

const schema = new Schema<WebhookReceiptFields>(
  {
    key: { type: String, required: true, description: "SHA-256 of the provider and the webhook's replay key" },
    provider: { type: String, required: true, description: "The webhook's provider" },
    created: { type: Date, required: true, description: "When it was received" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.index({ key: 1 }, { unique: true });
// Providers give up redelivering within days; a week of receipts refuses every replay they make.
schema.index({ created: 1 }, { expireAfterSeconds: 7 * 24 * 60 * 60 });

/**
 * The `CommsWebhookReceipt` model: what makes a replayed webhook a 409.
 *
 * @example
 * await webhookReceiptModel().create({ key, provider: "sendgrid", created: new Date() });
 */
export function webhookReceiptModel(): Model<WebhookReceiptFields> {
  return (mongoose.models.CommsWebhookReceipt as Model<WebhookReceiptFields> | undefined) ?? mongoose.model<WebhookReceiptFields>("CommsWebhookReceipt", schema);
}
