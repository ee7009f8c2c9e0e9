/**
 * git's unified diff drawn by diff2html (files, unified or side by side, syntax colour by its
 * own highlight.js): loaded with its styles when a job's Changes are first shown.
 *
 * Every file is drawn, whatever it holds. diff2html hands highlight.js a language's display name
 * ("Plain text" for a .txt, "HTML, XML" for a .html), which highlight.js does not know by that
 * name and throws on, which stopped the whole diff: here a language is asked for by the name the
 * file's extension gave, and a line highlight.js cannot colour is shown plain. A diff diff2html
 * cannot draw at all is drawn a file at a time, and a file it cannot draw is shown as git wrote it.
 */
import "diff2html/bundles/css/diff2html.min.css";
import { Diff2HtmlUI } from "diff2html/lib-esm/ui/js/diff2html-ui-base.js";
import { hljs } from "diff2html/lib-esm/ui/js/highlight.js-slim.js";
import { h } from "./dom.js";

export type Layout = "line-by-line" | "side-by-side";

type Hljs = typeof hljs;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** highlight.js as diff2html uses it, made unable to fail: an unknown language is plain text. */
const safeHljs = {
  ...hljs,
  getLanguage(name: string) {
    const lang = hljs.getLanguage(name);
    // Its display name is not a name highlight.js takes back; the one it was found by is.
    return lang ? { ...lang, name } : undefined;
  },
  highlight(code: string, options: { language: string; ignoreIllegals?: boolean }) {
    for (const language of [options.language, "plaintext"]) {
      try {
        return hljs.highlight(code, { ...options, language });
      } catch {
        // the next, down to no colour at all
      }
    }
    return { value: escapeHtml(code), language: undefined, relevance: 0, illegal: false, code };
  },
} as unknown as Hljs;

const options = (layout: Layout) => ({
  outputFormat: layout,
  drawFileList: true,
  fileListToggle: false,
  fileContentToggle: false,
  matching: "lines" as const,
  highlight: true,
  synchronisedScroll: true,
});

/** A diff's files, each from its `diff --git` line (what comes before the first is dropped). */
export function splitFiles(diff: string): string[] {
  return diff.split(/^(?=diff --git )/m).filter((part) => part.startsWith("diff --git "));
}

export function renderDiff(target: HTMLElement, diff: string, layout: Layout): void {
  try {
    draw(target, diff, layout, true);
    return;
  } catch {
    // drawn again below, a file at a time, so that one file it cannot draw hides no other
  }
  target.replaceChildren();
  for (const file of splitFiles(diff)) {
    const one = h("div", { class: "diff-one" });
    target.append(one);
    try {
      draw(one, file, layout, false);
    } catch (err) {
      const name = /^diff --git a\/(.*?) b\//.exec(file)?.[1] ?? "a file";
      one.replaceChildren(
        h(
          "div",
          { class: "d2h-file-wrapper diff-raw" },
          h("p", { class: "d2h-file-header" }, h("span", { class: "d2h-file-name" }, name)),
          h("p", { class: "muted small" }, `Shown as git wrote it (${(err as Error).message}).`),
          h("pre", null, file),
        ),
      );
    }
  }
}

function draw(target: HTMLElement, diff: string, layout: Layout, fileList: boolean): void {
  const ui = new Diff2HtmlUI(target, diff, { ...options(layout), drawFileList: fileList }, safeHljs);
  ui.draw();
  ui.highlightCode();
}
