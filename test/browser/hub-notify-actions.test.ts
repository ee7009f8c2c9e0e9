/**
 * Notifications you can answer, in a real chromium against a real daemon (docs/hub.md): the hub's
 * notification of a row that asks something new is shown through its service worker, titled with
 * the job, its question the body, its choices the actions and its `asked` in its data; an action
 * answers the row from the service worker with `ifAsked` (nothing of the page's involved), a stale
 * `asked` is refused and sends nothing, and a click on the body brings the hub to the row.
 *
 * It runs in the full chromium: the headless shell keeps no notification a worker shows
 * (`getNotifications()` answers none). Headless chromium shows no notification, so no real `notificationclick` can be clicked: the test
 * posts the service worker a message that runs the very function its `notificationclick` handler
 * runs (sw.ts, `onClick`), with the notification's data as the worker itself kept it.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { agentProfile, until } from "../helpers/daemon.js";
import { cleanDaemonPerFile, handled, startCleanDaemon } from "../helpers/jobs.js";
import { api, apiPost, apiRow, pageErrors, WAIT } from "./browser.js";
import { hubBrowser } from "./hub-setup.js";

const openPage = hubBrowser({}, "full");
const shared = cleanDaemonPerFile({ agentProfiles: { agent: agentProfile() } }, startCleanDaemon);

async function replies(id: string): Promise<string[]> {
  const { events } = await api(shared.d, `events?id=${id}`);
  return events.filter((e: any) => e.kind === "reply").map((e: any) => e.text);
}

/** The notifications the service worker shows, as the browser keeps them. */
const shown = (page: Page) =>
  page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: ((n as any).actions ?? []).map((a: any) => a.title),
      data: n.data,
    }));
  });

/** What the service worker's notificationclick does, run through a message (see above). */
const click = (page: Page, action: string, data: unknown) =>
  page.evaluate(
    async ([a, d]) => {
      const reg = await navigator.serviceWorker.ready;
      const channel = new MessageChannel();
      const answer = new Promise((resolve) => {
        channel.port1.onmessage = (e) => resolve(e.data);
      });
      reg.active!.postMessage({ type: "roost-notification-click", action: a, data: d }, [channel.port2]);
      return answer;
    },
    [action, data] as const,
  );

describe("a blocked row's notification", () => {
  it("carries its choices as actions; an action answers it with ifAsked, a stale one is refused, the body opens it", async () => {
    const { job } = await shared.c.ok("dispatch", {
      profile: "agent",
      name: "deploy-web",
      cwd: shared.dir,
      task: "block Deploy to staging?|yes,no,later",
    });
    const id = job.id as string;
    await until(`${id} blocked`, async () => (await apiRow(shared.d, id)).question === "Deploy to staging?");

    const { page, context } = await openPage(shared.d);
    await context.grantPermissions(["notifications"], { origin: new URL(shared.d.url).origin });
    // In the background, as a page must be for the hub to notify.
    await page.evaluate(() => {
      document.hasFocus = () => false;
    });
    const worker = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return reg.active?.scriptURL ?? null;
    });
    expect(worker).toBe(`${shared.d.url}sw.js`);
    await page.locator(`li.row[data-id="${id}"]`).getByText("Deploy to staging?").waitFor({ timeout: WAIT });

    // It asks something new: the hub notifies of it, through the worker.
    await apiPost(shared.d, "reply", { id, text: "block Deploy to production?|yes,no,later" });
    await until(
      `${id} asks of production`,
      async () => (await apiRow(shared.d, id)).question === "Deploy to production?",
    );
    const asked = (await apiRow(shared.d, id)).asked;
    await expect
      .poll(() => shown(page), { timeout: WAIT })
      .toEqual([
        {
          title: "deploy-web is blocked",
          body: "Deploy to production?",
          tag: `roost-${id}`,
          actions: ["yes", "no"], // as many as chromium shows (2)
          data: {
            id,
            name: "deploy-web",
            asked,
            choices: ["yes", "no", "later"],
            question: "Deploy to production?",
          },
        },
      ]);
    const data = (await shown(page))[0]!.data;

    // A stale notification (drawn for the question before) is refused: nothing sent.
    const stale = await click(page, "choice-1", { ...data, asked: asked - 1 });
    expect(stale).toMatchObject({
      refused: { code: "conflict", error: expect.stringContaining(`${id} now asks something else`) },
    });
    expect(await replies(id)).toEqual(["block Deploy to production?|yes,no,later"]);
    const said = await shown(page);
    expect(said.map((n) => n.title)).toEqual([`${id} now asks something else`]);

    // The action answers the question it was shown for, from the worker.
    expect(await click(page, "choice-0", data)).toEqual({ answered: "yes" });
    expect(await replies(id)).toEqual(["block Deploy to production?|yes,no,later", "yes"]);
    await until(`${id} took the answer`, () => handled(shared.d, id).some((h: any) => h.text === "yes"));
    // A second click on it (the notification still up somewhere) is refused: it was answered.
    expect(await click(page, "choice-1", data)).toMatchObject({ refused: { code: "conflict" } });
    expect(await replies(id)).toEqual(["block Deploy to production?|yes,no,later", "yes"]);

    // A click on the body brings the hub to the row.
    expect(await click(page, "", data)).toEqual({ opened: `${shared.d.url}#/jobs/${id}` });
    await expect.poll(() => page.url()).toBe(`${shared.d.url}#/jobs/${id}`);
    expect(pageErrors(page)).toEqual([]);
  });
});
