import { Context, Effect, Layer } from "effect"
import { anonymousPrincipal, type Principal } from "../domain/Principal.ts"
import type { ProtocolError } from "../domain/ProtocolErrors.ts"
import type { McpHttpRequest } from "./McpHttp.ts"
import type { McpMethod } from "./McpMethod.ts"

/**
 * Principal resolution, one stage of the pipeline (wire contract §5). `method` is undefined for
 * notifications, where a token only decides whether a cancel is acted on.
 */
export class Authenticator extends Context.Tag("dbdesk/http/Authenticator")<Authenticator, {
  readonly authenticate: (request: McpHttpRequest, method: McpMethod) => Effect.Effect<Principal, ProtocolError>
  readonly identifyNotifier: (request: McpHttpRequest) => Effect.Effect<Principal | undefined>
}>() {
  /** Every caller is the anonymous loopback principal (authentication off, or not yet configured). */
  static readonly anonymous = Layer.succeed(Authenticator, {
    authenticate: (request) => Effect.succeed(anonymousPrincipal(request.remoteAddress)),
    identifyNotifier: (request) => Effect.succeed(anonymousPrincipal(request.remoteAddress))
  })
}
