import { ProtocolError } from "./ProtocolErrors.ts"

/** Wire contract §5 points 2–5: the exact `WWW-Authenticate` challenges (`<app_name>` is dbdesk). */
export const MISSING_TOKEN_CHALLENGE = `Bearer realm="dbdesk"`
export const INVALID_TOKEN_CHALLENGE = `Bearer error="invalid_token"`
export const EXPIRED_TOKEN_CHALLENGE = `Bearer error="invalid_token", error_description="token expired"`
export const INSUFFICIENT_SCOPE_CHALLENGE = `Bearer error="insufficient_scope"`

const withChallenge = (error: ProtocolError, challenge: string) =>
  new ProtocolError({
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data }),
    headers: { ...error.headers, "www-authenticate": challenge }
  })

export const missingToken = () =>
  withChallenge(
    ProtocolError.of(-33009, "This request needs Authorization: Bearer <token>; create one with dbdesk token create"),
    MISSING_TOKEN_CHALLENGE
  )

export const invalidToken = () =>
  withChallenge(ProtocolError.of(-33009, "The bearer token is unknown or revoked"), INVALID_TOKEN_CHALLENGE)

export const expiredToken = () =>
  withChallenge(ProtocolError.of(-33008, "The bearer token has expired"), EXPIRED_TOKEN_CHALLENGE)

/**
 * Wire contract §5 point 5: every scope failure — a -33007 that names `requiredScopes`, whether
 * raised for the method, the tool or a write statement — carries the insufficient_scope challenge.
 */
export const withScopeChallenge = (error: ProtocolError): ProtocolError =>
  error.code === -33007 && error.data?.["requiredScopes"] !== undefined &&
    error.headers?.["www-authenticate"] === undefined
    ? withChallenge(error, INSUFFICIENT_SCOPE_CHALLENGE)
    : error
