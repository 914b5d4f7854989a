import { Context, Effect, Layer } from "effect"
import { ensureSupportDirectory, resolveSupportDirectory, type SupportFiles } from "./SupportDirectory.ts"

/** Where dbdesk keeps its files (D-7); created 0700 when the layer is built. */
export class SupportPaths extends Context.Tag("dbdesk/services/SupportPaths")<SupportPaths, SupportFiles>() {
  /**
   * The files in `directory`. Without one, the platform location (DBDESK_HOME, else the per-user directory): the only
   * place dbdesk reads the environment and the user's home, and only when the layer is built.
   */
  static readonly layer = (directory?: string) =>
    Layer.effect(SupportPaths, Effect.suspend(() => ensureSupportDirectory(directory ?? resolveSupportDirectory())))
}
