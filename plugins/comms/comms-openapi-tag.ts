/** The comms plugin's one OpenAPI tag. */
export const COMMS_TAG = Object.freeze({ name: "comms", description: "Push-token registration and the delivery log of the comms plugin" });
