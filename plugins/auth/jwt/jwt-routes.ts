import type { Router } from "express";
import { requireUser } from "../../../contracts/request-user.js";
import { AuthErrors } from "../errors.js";
import { authRoute, clientIp, signInDevice } from "../http/auth-route.js";
import { bearerToken } from "../http/authentication-middleware.js";
import {
  accountDeletionBody,
  credentialsBody,
  emailChangeBody,
  passwordChangeBody,
  passwordResetConfirmBody,
  passwordResetRequestBody,
  profileBody,
  linkTokenBody,
  refreshTokenBody,
  signupBody,
  type ProfileFieldSchemas,
} from "../http/request-bodies.js";
import type { JwtAuthService } from "./jwt-auth-service.js";
import type { AccountDeletion } from "./account-deletion.js";
import type { EmailChange } from "./email-change.js";
import type { EmailVerification } from "./email-verification.js";
import type { PasswordReset } from "./password-reset.js";

/**
 * The JWT provider's public paths: credentials sent to them are not checked by the middleware (a
 * stale access token must never stop a client from signing in, refreshing or signing out).
 */
export const JWT_PUBLIC_PATHS = [
  "/auth/signup",
  "/auth/login",
  "/auth/refresh_token",
  "/auth/logout",
  "/auth/password_reset",
  "/auth/password_reset/confirm",
  "/auth/verify_email",
  "/auth/change_email/confirm",
];

/**
 * Mounts SPEC §4.2's JWT routes with ARCHITECTURE §4's bodies:
 * `POST /auth/signup` (201) and `POST /auth/login` (200) → `{data: {token, refreshToken, userId}}`;
 * `POST /auth/refresh_token {refreshToken}` → `{data: {token, refreshToken}}`;
 * `GET /auth/me` and `PATCH /auth/me` → `{data: user}`. Beyond the spec, what every account
 * needs: `POST /auth/logout {refreshToken}` (204: that sign-in ends), `POST /auth/logout_all`
 * (204: every sign-in of the caller ends) and `POST /auth/change_password {currentPassword,
 * newPassword}` (200 with a new sign-in; the others end); with `reset` (the `passwordReset`
 * option), `POST /auth/password_reset {email}` (202, the same for every email) and
 * `POST /auth/password_reset/confirm {token, newPassword}` (204); with `verification`,
 * `POST /auth/verify_email {token}` (204) and `POST /auth/verify_email/resend` (202, signed in);
 * with `emailChange`, `POST /auth/change_email {newEmail, currentPassword}` (202, signed in) and
 * `POST /auth/change_email/confirm {token}` (204); with `deletion`, `POST /auth/delete_account
 * {currentPassword}` (204, signed in).
 * Bodies are checked by the shared validator before the service sees them (400 `VALIDATION_*`).
 *
 * @example
 * mountJwtRoutes(ctx.resolve(HTTP_ROUTER), service, { name: { type: "string" } });
 */
export function mountJwtRoutes(
  router: Router,
  service: JwtAuthService,
  profileFields: ProfileFieldSchemas,
  features: { reset?: PasswordReset; verification?: EmailVerification; emailChange?: EmailChange; deletion?: AccountDeletion } = {},
): void {
  const { reset, verification, emailChange, deletion } = features;
  const checkSignup = signupBody(profileFields);
  const checkProfile = profileBody(profileFields);
  router.post(
    "/auth/signup",
    authRoute(async (req, res) => {
      res.status(201).json({ data: await service.signup(checkSignup(req.body), signInDevice(req)) });
    }),
  );
  router.post(
    "/auth/login",
    authRoute(async (req, res) => {
      res.json({ data: await service.login(credentialsBody(req.body), signInDevice(req)) });
    }),
  );
  router.post(
    "/auth/refresh_token",
    authRoute(async (req, res) => {
      res.json({ data: await service.refresh(refreshTokenBody(req.body).refreshToken, signInDevice(req)) });
    }),
  );
  router.post(
    "/auth/logout",
    authRoute(async (req, res) => {
      await service.logout(refreshTokenBody(req.body).refreshToken);
      res.status(204).end();
    }),
  );
  router.post(
    "/auth/logout_all",
    authRoute(async (req, res) => {
      await service.logoutEverywhere(requireUser(req));
      res.status(204).end();
    }),
  );
  router.get(
    "/auth/sign_ins",
    authRoute(async (req, res) => {
      res.json({ data: await service.ownSignIns(requireUser(req), bearerToken(req)) });
    }),
  );
  router.delete(
    "/auth/sign_ins/:id",
    authRoute(async (req, res) => {
      if (!(await service.endSignIn(requireUser(req).id, signInIdParam(req.params.id)))) throw AuthErrors.SIGN_IN_NOT_FOUND();
      res.status(204).end();
    }),
  );
  router.post(
    "/auth/change_password",
    authRoute(async (req, res) => {
      const user = requireUser(req);
      res.json({ data: await service.changePassword(user, passwordChangeBody(req.body), signInDevice(req)) });
    }),
  );
  router.get(
    "/auth/me",
    authRoute(async (req, res) => {
      res.json({ data: service.present(requireUser(req)) });
    }),
  );
  router.patch(
    "/auth/me",
    authRoute(async (req, res) => {
      const user = requireUser(req);
      res.json({ data: await service.updateProfile(user, checkProfile(req.body)) });
    }),
  );
  if (reset) {
    router.post(
      "/auth/password_reset",
      authRoute(async (req, res) => {
        await reset.request(passwordResetRequestBody(req.body).email, clientIp(req));
        res.status(202).json({ data: { accepted: true } });
      }),
    );
    router.post(
      "/auth/password_reset/confirm",
      authRoute(async (req, res) => {
        await reset.confirm(passwordResetConfirmBody(req.body));
        res.status(204).end();
      }),
    );
  }
  if (verification) {
    router.post(
      "/auth/verify_email",
      authRoute(async (req, res) => {
        await verification.confirm(linkTokenBody(req.body).token);
        res.status(204).end();
      }),
    );
    router.post(
      "/auth/verify_email/resend",
      authRoute(async (req, res) => {
        await verification.resend(requireUser(req), clientIp(req));
        res.status(202).json({ data: { accepted: true } });
      }),
    );
  }
  if (emailChange) {
    router.post(
      "/auth/change_email",
      authRoute(async (req, res) => {
        await emailChange.request(requireUser(req), emailChangeBody(req.body), clientIp(req));
        res.status(202).json({ data: { accepted: true } });
      }),
    );
    router.post(
      "/auth/change_email/confirm",
      authRoute(async (req, res) => {
        await emailChange.confirm(linkTokenBody(req.body).token);
        res.status(204).end();
      }),
    );
  }
  if (deletion) {
    router.post(
      "/auth/delete_account",
      authRoute(async (req, res) => {
        // No body is `{}`: an account without a password has nothing to send.
        await deletion.delete(requireUser(req), accountDeletionBody(req.body ?? {}), bearerToken(req), clientIp(req));
        res.status(204).end();
      }),
    );
  }
}

/** A sign-in id from the path: a family id is a UUID, so anything much longer names none. */
function signInIdParam(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) throw AuthErrors.SIGN_IN_NOT_FOUND();
  return value;
}
