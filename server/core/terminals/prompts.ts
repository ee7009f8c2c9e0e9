/**
 * A terminal agent's prompt (docs/terminals.md, "The row, from the screen"): its row is `your turn`
 * only while its screen shows a prompt where the cursor is, not merely because it printed nothing
 * for a while (`python3 -i` in `time.sleep(500)` is quiet and at work). A profile's `promptPattern`
 * says what its prompt looks like; these are roost's defaults, for a profile that says nothing.
 * Each is matched against the cursor's line as far as the cursor (its trailing spaces kept: a
 * prompt ends where typing begins).
 */
export const DEFAULT_PROMPTS: readonly string[] = [
  // Shells: bash and sh `user@host:~$ `, root's `# `, zsh's `host% `, fish's `~> `, starship's and
  // pure's `❯ `, oh-my-zsh's `➜ `; Node's `> `; aider's `> ` (`architect> `, `ask> `); Claude Code's
  // `│ > ` (its input box); a program's own `ready> `.
  "[$#%>❯➜»] $",
  // Python's `>>> ` and its continuation `... ` (Node's too).
  "^\\s*(>>>|\\.\\.\\.) $",
  // Codex's composer: `› ` (`▌ ` in older versions).
  "^\\s*[›▌] ?$",
  // A pager waiting for a key: less's `:` and `(END)`, more's `--More--`.
  "^:$",
  "\\(END\\)$",
  "--More--(\\(\\d+%\\))?$",
];
