// Liveness and readiness probes (`GET /healthz`, `GET /readyz`), served by every app.
export { LIVENESS_PATH, probesPlugin, READINESS_PATH } from "./probes-plugin.js";
export { CHECK_TIMEOUT_MS, checkReadiness, type CheckResult } from "./readiness.js";
