import { useState } from "react"
import type { UiDriver } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { type Density, type Theme, usePrefs } from "../../shell/Prefs.tsx"

const STATE: Record<UiDriver["state"], string> = { builtIn: "built in", available: "available (not installed)", enabled: "installed" }

/** The plugin browser (D-55): drivers, built in or loadable, with enable/disable. */
export const PluginsPanel = () => {
  const drivers = useLoad((client) => client.connections.drivers(), [])
  const [list, setList] = useState<ReadonlyArray<UiDriver>>()
  const [error, setError] = useState<string>()
  const shown = list ?? drivers.data ?? []
  const change = (driver: UiDriver) => {
    setError(undefined)
    const request = driver.state === "enabled"
      ? call((client) => client.work.disableDriver({ path: { type: driver.type } }))
      : call((client) => client.connections.enableDriver({ path: { type: driver.type } }))
    request.then(setList, (e: Error) => setError(e.message))
  }
  return (
    <section className="card" aria-label="Plugins">
      <h3>Drivers</h3>
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      <table className="list" aria-label="Drivers">
        <thead><tr><th>Driver</th><th>State</th><th></th></tr></thead>
        <tbody>{shown.map((driver) => (
          <tr key={driver.type}>
            <td>{driver.title}</td><td>{STATE[driver.state]}</td>
            <td>{driver.state !== "builtIn" && <button onClick={() => change(driver)}>{driver.state === "enabled" ? "Disable" : "Enable"}</button>}</td>
          </tr>
        ))}</tbody>
      </table>
    </section>
  )
}

/** Theme and density of this browser. */
export const AppearancePanel = () => {
  const prefs = usePrefs()
  return (
    <section className="card" aria-label="Appearance">
      <h3>Appearance</h3>
      <div className="row">
        <label className="row">Theme
          <select aria-label="Theme" value={prefs.theme} onChange={(e) => prefs.setTheme(e.target.value as Theme)}>
            <option value="system">Follow the system</option><option value="light">Light</option><option value="dark">Dark</option>
          </select>
        </label>
        <label className="row">Density
          <select aria-label="Density" value={prefs.density} onChange={(e) => prefs.setDensity(e.target.value as Density)}>
            <option value="comfortable">Comfortable</option><option value="compact">Compact</option>
          </select>
        </label>
      </div>
    </section>
  )
}
