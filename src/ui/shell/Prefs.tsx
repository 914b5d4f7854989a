import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from "react"

export type Theme = "system" | "light" | "dark"
export type Density = "comfortable" | "compact"

export interface Prefs {
  readonly theme: Theme
  readonly density: Density
  /** Pixel height of a grid row for the density. */
  readonly rowHeight: number
  readonly setTheme: (theme: Theme) => void
  readonly setDensity: (density: Density) => void
}

const ROW_HEIGHT: Record<Density, number> = { comfortable: 28, compact: 22 }

const stored = <A extends string>(key: string, allowed: ReadonlyArray<A>, fallback: A): A => {
  const value = localStorage.getItem(key)
  return allowed.includes(value as A) ? value as A : fallback
}

const PrefsContext = createContext<Prefs>({
  theme: "system",
  density: "comfortable",
  rowHeight: ROW_HEIGHT.comfortable,
  setTheme: () => {},
  setDensity: () => {}
})

/** Look preferences of this browser (D-85): the theme follows the system unless chosen; the grid's density. */
export const PrefsProvider = ({ children }: { readonly children: ReactNode }) => {
  const [theme, setTheme] = useState<Theme>(() => stored("dbdesk.theme", ["system", "light", "dark"], "system"))
  const [density, setDensity] = useState<Density>(() => stored("dbdesk.density", ["comfortable", "compact"], "comfortable"))
  useEffect(() => {
    localStorage.setItem("dbdesk.theme", theme)
    localStorage.setItem("dbdesk.density", density)
    document.documentElement.dataset["theme"] = theme
    document.documentElement.dataset["density"] = density
  }, [theme, density])
  const value = useMemo(() => ({ theme, density, rowHeight: ROW_HEIGHT[density], setTheme, setDensity }), [theme, density])
  return <PrefsContext.Provider value={value}>{children}</PrefsContext.Provider>
}

export const usePrefs = () => useContext(PrefsContext)
