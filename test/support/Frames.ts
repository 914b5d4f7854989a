import type { Page } from "playwright-core"

/** What a page's main thread did during an action: the longest gap between animation frames and the longest task. */
export interface FrameReport {
  readonly worstFrameMs: number
  readonly longestTaskMs: number
  readonly longTasks: number
  readonly elapsedMs: number
}

/**
 * Measures responsiveness in Chromium around `action` (until `settled` resolves, then 300 ms more): every
 * requestAnimationFrame gap and every long task (a PerformanceObserver of type "longtask", tasks over 50 ms). A
 * frame gap is what a person sees as a freeze; the long tasks say what caused it.
 */
export const measureFrames = async (
  page: Page,
  action: () => Promise<void>,
  settled: () => Promise<void>
): Promise<FrameReport> => {
  await page.evaluate(() => {
    const w = window as unknown as {
      frames_: Array<number>
      tasks_: Array<number>
      stop_: boolean
      observer_?: PerformanceObserver
    }
    w.frames_ = []
    w.tasks_ = []
    w.stop_ = false
    w.observer_ = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.tasks_.push(entry.duration)
    })
    w.observer_.observe({ type: "longtask", buffered: false })
    const tick = (t: number) => {
      w.frames_.push(t)
      if (!w.stop_) requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  })
  await page.waitForTimeout(100)
  const started = Date.now()
  await action()
  await settled()
  const elapsedMs = Date.now() - started
  await page.waitForTimeout(300)
  const { worstFrameMs, longestTaskMs, longTasks } = await page.evaluate(() => {
    const w = window as unknown as {
      frames_: Array<number>
      tasks_: Array<number>
      stop_: boolean
      observer_?: PerformanceObserver
    }
    w.stop_ = true
    w.observer_?.disconnect()
    return {
      worstFrameMs: w.frames_.slice(1).reduce((max, t, i) => Math.max(max, t - (w.frames_[i] ?? t)), 0),
      longestTaskMs: w.tasks_.reduce((max, d) => Math.max(max, d), 0),
      longTasks: w.tasks_.length
    }
  })
  return { worstFrameMs, longestTaskMs, longTasks, elapsedMs }
}

export const frameLine = (what: string, report: FrameReport): string =>
  `${what}: worst frame ${report.worstFrameMs.toFixed(0)} ms, longest task ${
    report.longestTaskMs.toFixed(0)
  } ms (${report.longTasks} over 50 ms), done in ${report.elapsedMs} ms`
