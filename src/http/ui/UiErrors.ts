import { Effect } from "effect"
import { UiError, UiNotFound } from "../../domain/UiSchemas.ts"

/** Turns any service failure into words a person can act on (D-60); secrets were redacted upstream. */
export const uiMessage = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const tagged = error as {
      readonly _tag?: string
      readonly message?: unknown
      readonly table?: unknown
      readonly seconds?: unknown
      readonly detail?: unknown
    }
    switch (tagged._tag) {
      case "TableNotFound":
        return `There is no table named '${String(tagged.table)}'. Reload the sidebar; it may have been dropped.`
      case "StatementTimeout":
        return `The statement ran longer than ${
          String(tagged.seconds)
        } s and was stopped. Narrow it, or raise the query timeout in MCP › Settings.`
      case "ToolFailure":
        return String(tagged.detail)
      case "DriverNotEnabled":
        return "The Typesense driver is not installed yet. Choose Install in the new-connection chooser first."
    }
    if (typeof tagged.message === "string" && tagged.message !== "") return tagged.message
  }
  return String(error)
}

export const toUiError = (error: unknown) => new UiError({ message: uiMessage(error) })

/** Every UI handler ends in UiError or UiNotFound; anything else becomes a UiError with a readable message. */
export const forUi = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, UiError | UiNotFound, R> =>
  Effect.catchAll(
    effect,
    (error) => Effect.fail(error instanceof UiNotFound || error instanceof UiError ? error : toUiError(error))
  )

export const notFound = (what: string) => new UiNotFound({ message: `${what} no longer exists. Reload the page.` })
