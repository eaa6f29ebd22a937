// Chart.js (console/vendor/chart.js, its version and license in docs/console.md), loaded
// the first time a chart is drawn: only operators' dashboard draws any, so no one else
// downloads it. It is served with the page (the Content-Security-Policy allows nothing
// from elsewhere) and sets `window.Chart`.
const LIBRARY = "/console/vendor/chart.js/chart.umd.min.js";

let loading = null;

/** The Chart class, once its script has run. */
export function chartLibrary() {
  if (window.Chart) return Promise.resolve(window.Chart);
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = LIBRARY;
    script.addEventListener("load", () => resolve(window.Chart));
    script.addEventListener("error", () => {
      loading = null;
      script.remove();
      reject(new Error("The chart library did not load"));
    });
    document.head.append(script);
  });
  return loading;
}

/** The page's own colours (console.css), for a chart drawn on a canvas. */
export function colour(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
