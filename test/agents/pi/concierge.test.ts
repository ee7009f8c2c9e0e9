/**
 * The concierge roost starts (docs/protocol.md, "The concierge"; docs/pi.md, "The concierge"): `concierge
 * {action: "on"}` without a launch runs the real pi 0.74.2 with roost's extension and the
 * concierge's tools, against the scripted model. It gets a digest about a blocked session and
 * suggests an answer; with `answer: always` it answers when the user asks it to, the session takes
 * the answer once, the feed says the concierge answered; `undo` withdraws it. `npm run build` first.
 */
import { describe, expect, it } from "vitest";
import { rawAgent, silentProfile } from "../../helpers/jobs.js";
import { PI_WAIT, piWorldPerTest } from "../../helpers/pi.js";
import { type ModelRequest, textOf } from "../../helpers/scripted-model.js";

// `quiet`: a session whose agent the test plays, to be blocked on a question.
const world = piWorldPerTest({ config: { agentProfiles: { quiet: silentProfile() } } });

const call = (name: string, args: Record<string, unknown>) => ({ tools: [{ name, args }] });
const lastText = (req: ModelRequest) => textOf(req.messages.at(-1)?.content);

describe("roost's concierge, on pi", { timeout: 4 * PI_WAIT }, () => {
  it("suggests an answer from a digest; answers with answer: always, once; undo withdraws it", async () => {
    const w = await world();
    let asker = "";
    // The concierge's task is roost's prompt (no tag): its requests are under the model's id.
    w.model.script(
      "m1",
      call("roost_concierge_say", { kind: "info", text: "Ready for the first digest." }),
      { text: "Ready." },
      // Woken by the digest: the blocked session's question in it.
      (req) => ({
        text: lastText(req).includes("Run the migration?") ? "A routine question." : "No question in it?",
        ...call("roost_concierge_suggest", { id: asker, text: "yes", why: "a dev database" }),
      }),
      { text: "Suggested yes." },
      // Woken by the policy's change (answer: always now) for the question still waiting.
      call("roost_concierge_policy", {}),
      (req) => ({
        text: lastText(req),
        ...call("roost_concierge_reply", { id: asker, text: "yes", why: "the user asked me to" }),
      }),
      { text: "Answered." },
    );

    const on = await w.c.ok("concierge", { action: "on" });
    expect(on).toMatchObject({ on: true, policy: { answer: "never", act: false } });
    const concierge = on.id as string;
    const ready = await w.until(
      concierge,
      "the concierge ready",
      (r) => r.summary === "Ready." && r.state === "done",
    );
    expect(ready).toMatchObject({ role: "concierge", name: "concierge", profile: "concierge" });
    const first = w.model.requestsFor("m1")[0]!;
    expect(first.tools).toEqual(
      expect.arrayContaining([
        "roost_concierge_say",
        "roost_concierge_suggest",
        "roost_concierge_reply",
        "roost_concierge_order",
        "roost_concierge_policy",
        "roost_events",
        "roost_send",
        "roost_tasks",
      ]),
    );
    // The policy at its start (act: false) allows no act: spawning and acting are not offered.
    for (const denied of ["roost_spawn", "roost_concierge_act"]) expect(first.tools).not.toContain(denied);
    expect(textOf(first.messages.find((m) => m.role === "user")?.content)).toContain(
      "You are roost's concierge",
    );
    const said = (await w.c.ok("events", { id: concierge })).events.find((e: any) => e.kind === "concierge");
    expect(said).toMatchObject({
      why: "info",
      text: "Ready for the first digest.",
      who: "concierge",
      whoId: concierge,
    });

    // A session blocks on a question: the digest wakes the concierge, which suggests an answer.
    const { job } = await w.c.ok("dispatch", { profile: "quiet", name: "migrator" });
    asker = job.id;
    const { agent, token } = await rawAgent(w.d, w.c, asker);
    await agent.ok("report", {
      id: asker,
      token,
      report: {
        state: "blocked",
        status: "waiting",
        waitingFor: "question",
        question: "Run the migration?",
        choices: ["yes", "no"],
      },
    });
    const suggested = await w.until(asker, "a suggestion", (r) => r.suggested !== null);
    expect(suggested.suggested).toMatchObject({ text: "yes", why: "a dev database" });
    const woken = w.model.requestsFor("m1")[2]!;
    expect(lastText(woken)).toMatch(/^\[roost digest: from roost, not the user;/);
    expect(lastText(woken)).toContain(
      `${asker} "migrator" (quiet) blocked (asked 1): Run the migration? [yes | no]`,
    );
    expect(agent.events.filter((e) => e.event === "deliver")).toEqual([]); // a suggestion only

    // answer: always wakes it for the question waiting (a digest, why policy): the session takes
    // the answer, once, saying the concierge gave it.
    await w.c.ok("concierge", { action: "answer", answer: "always" });
    const got = await agent.event((e) => e.event === "deliver" && e.text === "yes", "the answer", PI_WAIT);
    expect(got).toMatchObject({ answeredBy: "concierge", why: "the user asked me to" });
    expect(lastText(w.model.requestsFor("m1")[4]!)).toContain('<roost-digest why="policy"');
    await agent.ok("ack", { id: asker, token, seq: got.seq });
    await w.until(concierge, "the concierge done", (r) => r.summary === "Answered." && r.pending === 0);
    expect(w.model.requestsFor("m1")[5]!.tools).not.toContain("roost_spawn");
    const policySaid = lastText(w.model.requestsFor("m1")[5]!);
    expect(policySaid).toContain('"answer": "always"');
    const status = await w.c.ok("concierge", { action: "status" });
    expect(status.answered).toMatchObject({
      id: asker,
      text: "yes",
      question: "Run the migration?",
      undone: false,
    });
    const replies = (await w.c.ok("events", { id: asker })).events.filter((e: any) => e.kind === "reply");
    expect(replies).toEqual([
      expect.objectContaining({
        text: "yes",
        who: "concierge",
        whoId: concierge,
        why: "the user asked me to",
      }),
    ]);

    // Undo: the session is steered to disregard it.
    const undone = await w.c.ok("concierge", { action: "undo" });
    expect(undone.undone).toMatchObject({ id: asker, undone: true });
    const steer = await agent.event((e) => e.event === "deliver" && e.mode === "steer", "the undo");
    expect(steer.text).toContain("withdrew the answer the concierge gave in their place");
    expect(agent.events.filter((e) => e.event === "deliver" && e.text === "yes")).toHaveLength(1);
  });
});
