/**
 * Where a dispatched job runs, in the dispatch dialog: its working directory, typed or picked from
 * the recent ones (the directories of the jobs the page knows, newest first, and those dispatched
 * from this browser) and the repositories roost has seen (its worktree jobs' base checkouts); the
 * default said plainly (the profile's directory, else the daemon's home: `profiles`'s `cwd`); and
 * whether it gets a git worktree of its own, on which branch.
 */
import type { Profile, Row } from "./api.js";
import { h } from "./dom.js";
import type { Field } from "./launch-fields.js";
import { prefs, setPrefs } from "./prefs.js";

/** How many of each are offered as buttons (the list under the field has them all). */
const SHOWN = 4;
/** How many directories dispatched from this browser are kept. */
const KEPT = 20;

/** Where a job ran, as the user would name it: a worktree job's place in its base checkout. */
export function placeOf(row: Row): string {
  const wt = row.worktree;
  if (wt && (row.cwd === wt.path || row.cwd.startsWith(`${wt.path}/`)))
    return wt.repo + row.cwd.slice(wt.path.length);
  return row.cwd;
}

/** The recent directories (newest first, each once) and the repositories seen (by name). */
export function placesOf(
  rows: Iterable<Row>,
  kept: readonly string[],
): { recent: string[]; repos: string[] } {
  const local = [...rows].filter((r) => !r.daemon && r.cwd);
  const byTime = local.sort((a, b) => (b.startedAt ?? "").localeCompare(a.startedAt ?? ""));
  const recent = [...new Set([...kept, ...byTime.map(placeOf)])];
  const repos = [...new Set(local.flatMap((r) => (r.worktree ? [r.worktree.repo] : [])))].sort();
  return { recent, repos };
}

/** The directory dispatched to, kept first among the recent ones of this browser. */
export function keepDir(dir: string): void {
  setPrefs({ dirs: [dir, ...prefs().dirs.filter((d) => d !== dir)].slice(0, KEPT) });
}

const base = (dir: string) => dir.replace(/\/+$/, "").split("/").pop() || dir;

export class WhereFields {
  readonly cwd = h("input", {
    name: "cwd",
    list: "dispatch-dirs",
    placeholder: "the default, below",
    autocomplete: "off",
    spellcheck: "false",
  });
  private readonly dirs = h("datalist", { id: "dispatch-dirs" });
  private readonly picks = h("div", { class: "picks" });
  private readonly hint = h("small", { class: "muted where-default" });
  private readonly worktree = h("input", { type: "checkbox", name: "worktree", id: "dispatch-worktree" });
  private readonly branch = h("input", {
    name: "branch",
    placeholder: "roost/<job id>",
    autocomplete: "off",
    spellcheck: "false",
    "aria-label": "Branch",
    disabled: true,
  });

  constructor() {
    this.worktree.addEventListener("change", () => this.syncBranch());
  }

  fields(field: Field): HTMLElement[] {
    const where = field("Working directory", this.cwd, this.hint);
    where.append(this.dirs, this.picks);
    const wt = h(
      "div",
      { class: "field worktree-field" },
      h("label", { class: "check" }, this.worktree, " A git worktree of its own, on a new branch"),
      h("label", { class: "branch", for: "dispatch-branch" }, "Branch"),
      this.branch,
      h(
        "small",
        { class: "muted", id: "dispatch-branch-hint" },
        "The directory must be in a git repository; the job's changes are then its Changes, to merge.",
      ),
    );
    this.branch.id = "dispatch-branch";
    this.branch.setAttribute("aria-describedby", "dispatch-branch-hint");
    return [where, wt];
  }

  /** Drawn for the profile chosen and the jobs known now (when the dialog opens, and as the profile changes). */
  update(profile: Profile | undefined, rows: Iterable<Row>, keepChoices = false): void {
    const { recent, repos } = placesOf(rows, prefs().dirs);
    this.dirs.replaceChildren(
      ...[...recent, ...repos.filter((r) => !recent.includes(r))].map((d) => h("option", { value: d })),
    );
    const pick = (dir: string, kind: string) =>
      h(
        "button",
        {
          type: "button",
          class: "pick small",
          title: `${dir} (${kind})`,
          "data-dir": dir,
          onclick: () => {
            this.cwd.value = dir;
            this.cwd.focus();
          },
        },
        kind === "repository" ? `⎇ ${base(dir)}` : base(dir),
      );
    const shown = recent.slice(0, SHOWN);
    const otherRepos = repos.filter((r) => !shown.includes(r)).slice(0, SHOWN);
    this.picks.replaceChildren(
      ...(shown.length
        ? [h("span", { class: "muted small" }, "Recent:"), ...shown.map((d) => pick(d, "recent"))]
        : []),
      ...(otherRepos.length
        ? [
            h("span", { class: "muted small" }, "Repositories:"),
            ...otherRepos.map((d) => pick(d, "repository")),
          ]
        : []),
    );
    this.picks.hidden = !shown.length && !otherRepos.length;
    this.hint.textContent = profile
      ? `In ${profile.cwd} (${profile.cwdIsHome ? "the daemon's home" : `${profile.name}'s directory`}) unless you pick one. An absolute path on the daemon's machine.`
      : "An absolute path on the daemon's machine.";
    if (!keepChoices) {
      this.worktree.checked = profile?.worktree ?? false;
      this.syncBranch();
    }
  }

  /** `dispatch`'s args for where: the directory if one is named, the worktree as ticked, its branch if named. */
  args(): { cwd?: string; worktree: boolean; branch?: string } {
    const cwd = this.cwd.value.trim();
    const branch = this.branch.value.trim();
    return {
      ...(cwd ? { cwd } : {}),
      worktree: this.worktree.checked,
      ...(this.worktree.checked && branch ? { branch } : {}),
    };
  }

  private syncBranch(): void {
    this.branch.disabled = !this.worktree.checked;
  }
}
