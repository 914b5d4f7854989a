import { Effect } from "effect"
import { HostCatalog } from "../../services/resources/HostCatalog.ts"
import { RESOURCE_TEMPLATES } from "../../services/resources/ResourceUris.ts"
import { fixedListMethod } from "./FixedList.ts"

/** Wire contract §4.3–4.5: the same templates for every caller (3600000 ms, `public`), 50 per page; then a host's. */
export const ResourcesTemplatesListMethod = Effect.map(
  HostCatalog,
  (host) =>
    fixedListMethod("resources/templates/list", "resourceTemplates", [
      ...RESOURCE_TEMPLATES.map((template) => ({ ...template, mimeType: "application/json" })),
      ...host.templates.map((template) => template.listing)
    ])
)
