import { Context, Layer } from "effect"
import { ensureSupportDirectory, resolveSupportDirectory, type SupportFiles } from "./SupportDirectory.ts"

/** Where dbdesk keeps its files (product-decisions §1); created 0700 when the layer is built. */
export class SupportPaths extends Context.Tag("dbdesk/services/SupportPaths")<SupportPaths, SupportFiles>() {
  static readonly layer = (directory?: string) =>
    Layer.effect(SupportPaths, ensureSupportDirectory(directory ?? resolveSupportDirectory()))
}
