/** What a scenario is to the runner (bench/run.ts). */
import type { Figure } from "./figures.js";

export interface ScenarioContext {
  /** `--profile`: the daemon runs with `--cpu-prof` into this directory, and the event-loop probe. */
  profileDir: string | null;
  /** Progress, on stderr. */
  log: (message: string) => void;
}

export interface ScenarioResult {
  figures: Figure[];
  /** Everything measured, per round, for results.jsonl. */
  detail: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  aliases: string[];
  title: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}
