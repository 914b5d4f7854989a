import { Context, Effect, Layer } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import type { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { MethodContext } from "../MethodContext.ts"

/**
 * Prompts, resources and resource templates an embedding host offers next to dbdesk's own (as
 * `extraTools` does for tools). Each is listed after the built-in ones, paged like them, and
 * reached through the same methods, gates and envelope; the host answers with the JSON of the
 * MCP result (it may be an `input_required` result).
 */
export interface HostPrompt {
  /** As `prompts/list` shows it: `name`, and optionally `title`, `description`, `arguments`. */
  readonly listing: JsonObject & { readonly name: string }
  /** `prompts/get`: `{ messages, description? }`; -32602 for arguments it does not take. */
  readonly get: (args: JsonObject, context: MethodContext) => Effect.Effect<JsonObject, ProtocolError>
  /** `completion/complete` values for one argument (ranked by dbdesk: prefix matches first, ≤ 100). */
  readonly complete?: (argument: string, typed: string, args: JsonObject) => ReadonlyArray<string>
}

export interface HostResource {
  /** As `resources/list` shows it: `uri`, `name`, and optionally `title`, `description`, `mimeType`. */
  readonly listing: JsonObject & { readonly uri: string; readonly name: string }
  /** `resources/read`: `{ contents: [...] }`. */
  readonly read: (context: MethodContext) => Effect.Effect<JsonObject, ProtocolError>
  /** Cache lifetime of a read (wire contract §4.4 bounds it to 5000–300000 ms); default 5000. */
  readonly ttlMs?: number
}

export interface HostResourceTemplate {
  /** As `resources/templates/list` shows it: `uriTemplate`, `name`, and optionally `title`, `description`, `mimeType`. */
  readonly listing: JsonObject & { readonly uriTemplate: string; readonly name: string }
  /** `resources/read` of a URI this template matches, with the template's variables. */
  readonly read: (
    uri: string,
    variables: Readonly<Record<string, string>>,
    context: MethodContext
  ) => Effect.Effect<JsonObject, ProtocolError>
  readonly complete?: (argument: string, typed: string, args: JsonObject) => ReadonlyArray<string>
  readonly ttlMs?: number
}

export interface HostCatalogShape {
  readonly prompts: ReadonlyArray<HostPrompt>
  readonly resources: ReadonlyArray<HostResource>
  readonly templates: ReadonlyArray<HostResourceTemplate>
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The variables of `uri` under a level-1 URI template (`test://items/{id}/data`): each `{name}`
 * matches one non-empty path segment; `undefined` when the URI does not fit.
 */
export const matchUriTemplate = (template: string, uri: string): Readonly<Record<string, string>> | undefined => {
  const names: Array<string> = []
  const pattern = template.split(/(\{[A-Za-z0-9_]+\})/).map((part) => {
    const variable = /^\{([A-Za-z0-9_]+)\}$/.exec(part)
    if (variable === null) return escape(part)
    names.push(variable[1]!)
    return "([^/?#]+)"
  }).join("")
  const found = new RegExp(`^${pattern}$`).exec(uri)
  if (found === null) return undefined
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]))
}

export class HostCatalog extends Context.Tag("dbdesk/services/resources/HostCatalog")<
  HostCatalog,
  HostCatalogShape & {
    readonly prompt: (name: string) => HostPrompt | undefined
    readonly resource: (uri: string) => HostResource | undefined
    /** The template a URI falls under, with its variables. */
    readonly template: (
      uri: string
    ) => { readonly template: HostResourceTemplate; readonly variables: Readonly<Record<string, string>> } | undefined
    readonly templateNamed: (uriTemplate: string) => HostResourceTemplate | undefined
  }
>() {
  /** Names must not clash with dbdesk's own prompts and URIs: a host adds, it never replaces. */
  static readonly layer = (
    catalog: Partial<HostCatalogShape>,
    reserved: { readonly prompts: ReadonlyArray<string>; readonly uriPrefix: string }
  ) =>
    Layer.effect(
      HostCatalog,
      Effect.sync(() => {
        const prompts = catalog.prompts ?? []
        const resources = catalog.resources ?? []
        const templates = catalog.templates ?? []
        const clash = prompts.find((prompt) => reserved.prompts.includes(prompt.listing.name))
        if (clash !== undefined) {
          throw new Error(`A host prompt may not replace the built-in prompt ${clash.listing.name}`)
        }
        const taken = [
          ...resources.map((resource) => resource.listing.uri),
          ...templates.map((template) => template.listing.uriTemplate)
        ].find((uri) => uri.startsWith(reserved.uriPrefix))
        if (taken !== undefined) throw new Error(`A host resource may not use dbdesk's own scheme: ${taken}`)
        return {
          prompts,
          resources,
          templates,
          prompt: (name) => prompts.find((prompt) => prompt.listing.name === name),
          resource: (uri) => resources.find((resource) => resource.listing.uri === uri),
          template: (uri) => {
            for (const template of templates) {
              const variables = matchUriTemplate(template.listing.uriTemplate, uri)
              if (variables !== undefined) return { template, variables }
            }
            return undefined
          },
          templateNamed: (uriTemplate) => templates.find((template) => template.listing.uriTemplate === uriTemplate)
        }
      })
    )

  static readonly empty = HostCatalog.layer({}, { prompts: [], uriPrefix: "dbdesk://" })
}
