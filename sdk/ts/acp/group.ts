/**
 * The ACP agent's process group (docs/agents.md, "ACP agents"): the bridge starts the agent in a
 * group of its own, so that a stop or a failed start ends the agent and what it runs, and an agent
 * that dies (a crash, kill -9, or its npm wrapper killed) takes what it left with it: SIGTERM to the
 * group, SIGKILL after the grace. Linux's /proc
 * counts them; elsewhere the count is 0, the signals go all the same.
 */
import fs from "node:fs";

/** The live processes of the group (its pgid its leader's pid), from /proc. */
function membersOf(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!(pid > 0)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** Signals the group; false when nothing of it is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Ends the group: SIGTERM now, then SIGKILL once `graceMs` has passed with any still there (an
 * agent may ignore SIGTERM, as Gemini CLI does). `left`: how many there were, counted now (the
 * leader, once it has exited, is not); `gone` resolves once they are gone, or killed.
 */
export function endGroup(pgid: number, graceMs: number): { left: number; gone: Promise<void> } {
  const left = membersOf(pgid).length;
  if (!signalGroup(pgid, "SIGTERM")) return { left, gone: Promise.resolve() };
  const gone = (async () => {
    const end = Date.now() + graceMs;
    while (Date.now() < end) {
      if (membersOf(pgid).length === 0) return;
      await sleep(50);
    }
    signalGroup(pgid, "SIGKILL");
  })();
  return { left, gone };
}
