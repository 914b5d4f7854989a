import { Context, Layer } from "effect"
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../domain/ProtocolVersions.ts"

/**
 * Wire contract §9 point 3: the live list of revisions this server answers, as published by
 * `server/discover`. Legacy revisions join the list only when the legacy era is served.
 */
export class SupportedVersions extends Context.Tag("dbdesk/http/SupportedVersions")<SupportedVersions, {
  readonly current: () => ReadonlyArray<string>
  readonly servesLegacy: boolean
}>() {
  static readonly modernOnly = Layer.succeed(SupportedVersions, { current: () => MODERN_VERSIONS, servesLegacy: false })
  static readonly allEras = Layer.succeed(SupportedVersions, {
    current: () => [...MODERN_VERSIONS, ...LEGACY_VERSIONS],
    servesLegacy: true
  })
}
