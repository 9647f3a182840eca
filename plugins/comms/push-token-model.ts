import mongoose, { Schema, type Model, type Types } from "mongoose";
import { createdUpdatedPlugin, findOneOrNone } from "../rest/index.js";

/** The kinds of push token a device can register. */
export const PUSH_TOKEN_KINDS = ["expo", "webpush"] as const;
export type PushTokenKind = (typeof PUSH_TOKEN_KINDS)[number];

/** Why a token stopped being active. */
export type PushTokenDeactivation = "owner" | "provider" | "limit";

/** A stored device token (SPEC §2.7, §3.3). */
export interface PushTokenFields {
  token: string;
  kind: PushTokenKind;
  ownerId: Types.ObjectId;
  active: boolean;
  deviceName?: string;
  lastRegisteredAt?: Date;
  deactivatedAt?: Date;
  deactivationReason?: PushTokenDeactivation;
  deactivationCode?: string;
  created?: Date;
  updated?: Date;
}

export type PushTokenModel = Model<PushTokenFields>;

const schema = new Schema<PushTokenFields>(
  {
    token: { type: String, required: true, maxlength: 4096, description: "The Expo push token, or the Web Push subscription as JSON" },
    kind: { type: String, enum: PUSH_TOKEN_KINDS, required: true, description: "expo or webpush" },
    ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true, description: "The user the token delivers to" },
    active: { type: Boolean, default: true, index: true, description: "Inactive tokens get nothing and may be claimed by another user" },
    deviceName: { type: String, maxlength: 200, description: "A label for the device, chosen by the client" },
    lastRegisteredAt: { type: Date, description: "When the device last registered or refreshed the token" },
    deactivatedAt: { type: Date, description: "When the token became inactive" },
    deactivationReason: { type: String, enum: ["owner", "provider", "limit"], description: "owner (deleted by its user), provider (a permanent send failure) or limit (the user registered more tokens than maxPushTokensPerUser)" },
    deactivationCode: { type: String, description: "The provider's error code when the provider deactivated it" },
  },
  { strict: "throw", toJSON: { virtuals: true }, toObject: { virtuals: true } },
);
schema.plugin(createdUpdatedPlugin);
schema.plugin(findOneOrNone);
// One record per device token: a re-registration refreshes (or, when inactive, claims) it.
schema.index({ token: 1 }, { unique: true });

/**
 * The `CommsPushToken` model, on mongoose's default connection.
 *
 * @example
 * const active = await pushTokenModel().find({ ownerId: userId, active: true });
 */
export function pushTokenModel(): PushTokenModel {
  return (mongoose.models.CommsPushToken as PushTokenModel | undefined) ?? mongoose.model<PushTokenFields>("CommsPushToken", schema);
}
