/**
 * git's unified diff drawn by diff2html (files, unified or side by side, syntax colour by its
 * own highlight.js): loaded with its styles when a job's Changes are first shown.
 */
import "diff2html/bundles/css/diff2html.min.css";
import { Diff2HtmlUI } from "diff2html/lib-esm/ui/js/diff2html-ui-slim.js";

export type Layout = "line-by-line" | "side-by-side";

export function renderDiff(target: HTMLElement, diff: string, layout: Layout): void {
  const ui = new Diff2HtmlUI(target, diff, {
    outputFormat: layout,
    drawFileList: true,
    fileListToggle: false,
    fileContentToggle: false,
    matching: "lines",
    highlight: true,
    synchronisedScroll: true,
  });
  ui.draw();
  ui.highlightCode();
}
