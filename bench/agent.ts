/**
 * A protocol agent speaking for one inert job (see `dispatchJobs`) on a raw connection: `hello`
 * and a first report, which make the connection the job's, then the reports a scenario sends.
 * Every answer is timed; error answers are counted, the first kept to say why.
 */
import { performance } from "node:perf_hooks";
import type { InertJob } from "./harness.js";
import { Conn } from "./lines.js";

export class BenchAgent {
  /** Each answer's time since its request, in ms, in the order they came. */
  readonly answerMs: number[] = [];
  errors = 0;
  firstError: string | null = null;
  /** Requests sent, and reports among them. */
  sent = 0;
  reports = 0;

  private constructor(
    private readonly conn: Conn,
    readonly job: InertJob,
    readonly n: number,
  ) {}

  static async connect(socketPath: string, job: InertJob, n: number): Promise<BenchAgent> {
    return new BenchAgent(await Conn.connect(socketPath), job, n);
  }

  /** `hello` and the first report; resolves once both are answered. */
  async introduce(name: string, capabilities: string[], report: object): Promise<void> {
    await Promise.all([
      this.request("hello", { protocol: 1, agent: { name, version: "1.0" }, capabilities }),
      this.report(report),
    ]);
  }

  report(report: object): Promise<void> {
    this.reports++;
    return this.request("report", { id: this.job.id, token: this.job.token, report });
  }

  /** Resolves once every request sent is answered. */
  async settled(): Promise<void> {
    while (this.conn.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }

  close(): void {
    this.conn.close();
  }

  private async request(op: string, args: unknown): Promise<void> {
    const t = performance.now();
    this.sent++;
    const a = await this.conn.request(op, args);
    this.answerMs.push(performance.now() - t);
    if (!a.ok) {
      this.errors++;
      this.firstError ??= `${a.code}: ${a.error}`;
    }
  }
}
