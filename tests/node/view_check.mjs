// Loads a `sensim view` page in Debian's headless Chromium (software WebGL),
// waits until the page says it is ready (a state, not a sleep), and writes a
// screenshot. Prints JSON: the frame count the page shows, its point count
// text, its status, and console errors.
//
// Usage: node view_check.mjs PAGE.html SHOT.png [frame]
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";

const [page_path, shot, frame] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-dev-shm-usage"],
});
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(pathToFileURL(page_path).href);
  await page.waitForFunction(() => document.body.dataset.ready === "1", null, { timeout: 180000 });
  if (frame !== undefined) {
    await page.evaluate((f) => { const s = document.getElementById("slider"); s.value = f;
      s.dispatchEvent(new Event("input")); }, frame);
  }
  await page.screenshot({ path: shot });
  const text = (id) => page.$eval("#" + id, (e) => e.textContent);
  const out = { frames: await text("frames"), frame: await text("frame"), count: await text("count"),
                status: await text("status"), images: await page.$$eval("#images img", (l) => l.length),
                errors };
  process.stdout.write(JSON.stringify(out));
} finally {
  await browser.close();
}
