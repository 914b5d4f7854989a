import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { COLORS } from "./labels.ts"

/**
 * A connection's colour dot and its "Production" badge, for its row in the list and for every tab of it in the
 * workspace: `<ConnectionMark connection={c} />` next to the tab's title (renders nothing when neither is set).
 */
export const ConnectionMark = ({ connection }: { readonly connection: Pick<UiConnection, "color" | "production"> }) => (
  <>
    {connection.color !== undefined && (
      <span
        className="connection-dot"
        role="img"
        aria-label={`Colour: ${COLORS.find(([value]) => value.toLowerCase() === connection.color?.toLowerCase())?.[1] ?? connection.color}`}
        style={{ background: connection.color }}
      />
    )}
    {connection.production === true && <span className="badge production" title="Marked as a production database">Production</span>}
  </>
)
