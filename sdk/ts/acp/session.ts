/**
 * The ACP session a job's agent works in, made by the bridge (docs/agents.md, "ACP agents"):
 * `initialize`, a login where the agent asks for one (auth.ts), the session in the job's directory
 * (the one it had, or a new one: resume.ts) with roost's tools as an MCP server; and the session as
 * the turns use it: a prompt, a cancel, `/model` and `/mode`. The model is read from the session's
 * config options (category `model`) or, where the agent lists its models as `models` (Gemini CLI,
 * claude-agent-acp), from that list, switched with `session/set_model`.
 */
import * as acp from "@agentclientprotocol/sdk";
import { RELAY_ENV } from "../agent/tool-relay.js";
import { type AcpRow, modelOf } from "./acp-row.js";
import { withLogin } from "./auth.js";
import { openSession } from "./resume.js";
import type { AcpSession } from "./turns.js";
import { type TurnAnswer, tokensOf } from "./usage.js";

/** How long the agent has to answer `initialize`: one that speaks no ACP would keep the row starting. */
const INITIALIZE_MS = 60_000;

/** The models an agent lists in its session's answer (`models`, an ACP draft the SDK's types lack). */
interface ModelList {
  availableModels: { modelId: string; name: string }[];
  currentModelId: string;
}

function modelListOf(answer: unknown): ModelList | null {
  const models = (answer as { models?: ModelList } | null)?.models;
  return models && Array.isArray(models.availableModels) && typeof models.currentModelId === "string"
    ? models
    : null;
}

const nameIn = (list: ModelList, id: string): string =>
  list.availableModels.find((m) => m.modelId === id)?.name ?? id;

/** claude-agent-acp says it takes prompts while a turn runs (`_meta.claudeCode.promptQueueing`). */
function queuesPrompts(init: acp.InitializeResponse): boolean {
  const meta = init.agentCapabilities?._meta as { claudeCode?: { promptQueueing?: unknown } } | undefined;
  return meta?.claudeCode?.promptQueueing === true;
}

export interface Started {
  session: AcpSession;
  conversation: { session: string; resumed: boolean };
}

/** `initialize` within INITIALIZE_MS, else why not. */
async function initialize(
  ctx: acp.ClientConnection["agent"],
  version: string,
): Promise<acp.InitializeResponse> {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `no answer to initialize within ${INITIALIZE_MS / 1000} s: does it speak ACP on its stdin and stdout (Gemini CLI needs --acp)?`,
          ),
        ),
      INITIALIZE_MS,
    );
  });
  try {
    return await Promise.race([
      silent,
      ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "roost", version },
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startSession(opts: {
  connection: acp.ClientConnection;
  version: string;
  /** `roost mcp`'s command (its relay socket given in its env); null: no roost tools. */
  mcp: { command: string; args: string[]; relay: string } | null;
  row: AcpRow;
  replaying: { now: boolean };
  /** The agent's environment (the keys a login may use). */
  env: NodeJS.ProcessEnv;
  say: (message: string) => void;
}): Promise<Started> {
  const { row } = opts;
  const ctx = opts.connection.agent;
  const init = await initialize(ctx, opts.version);
  const mcpServers: acp.McpServer[] = opts.mcp
    ? [
        {
          name: "roost",
          command: opts.mcp.command,
          args: opts.mcp.args,
          env: [{ name: RELAY_ENV, value: opts.mcp.relay }],
        },
      ]
    : [];
  const canLoad = init.agentCapabilities?.loadSession === true;
  const methods = (init.authMethods ?? []) as { id: string; name: string }[];
  const opened = await withLogin(ctx, methods, opts.env, () =>
    openSession(ctx, canLoad, { cwd: process.cwd(), mcpServers }, opts.replaying, opts.say),
  );
  const sessionId = opened.sessionId;
  let { configOptions, modes } = opened;
  const models = modelListOf(opened.answer);
  row.setModel(modelOf(configOptions) ?? (models ? nameIn(models, models.currentModelId) : null));
  const conversation = { session: sessionId, resumed: opened.resumed };

  async function setModel(want: string): Promise<string | null> {
    if (!models) return "/model: this agent offers no model to choose";
    const model = models.availableModels.find(
      (m) => m.modelId.toLowerCase() === want || m.name.toLowerCase() === want,
    );
    if (!model) return `/model: the agent offers ${models.availableModels.map((m) => m.modelId).join(", ")}`;
    // Not in the SDK's stable methods: sent as the agents take it.
    const request = ctx.request as unknown as (method: string, params: unknown) => Promise<unknown>;
    await request.call(ctx, "session/set_model", { sessionId, modelId: model.modelId });
    models.currentModelId = model.modelId;
    row.setModel(model.name);
    return null;
  }

  const session: AcpSession = {
    async prompt(text): Promise<TurnAnswer> {
      const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      return { stop: r.stopReason, tokens: tokensOf(r) };
    },
    cancel() {
      void ctx.notify("session/cancel", { sessionId }).catch(() => {});
    },
    queues: queuesPrompts(init),
    async command(name, arg) {
      const want = arg.toLowerCase();
      const option = configOptions.find((o) => o.category === name && o.type === "select");
      if (option && option.type === "select") {
        const values = option.options.flatMap((o) => ("group" in o ? o.options : [o]));
        const value = values.find((v) => v.value.toLowerCase() === want || v.name.toLowerCase() === want);
        if (!value) return `/${name}: the agent offers ${values.map((v) => v.value).join(", ")}`;
        const r = await ctx.request("session/set_config_option", {
          sessionId,
          configId: option.id,
          value: value.value,
        });
        configOptions = r.configOptions ?? configOptions;
        row.setModel(modelOf(configOptions));
        return null;
      }
      if (name === "model") return setModel(want);
      if (modes) {
        const mode = modes.availableModes.find(
          (m) => m.id.toLowerCase() === want || m.name.toLowerCase() === want,
        );
        if (!mode) return `/mode: the agent offers ${modes.availableModes.map((m) => m.id).join(", ")}`;
        await ctx.request("session/set_mode", { sessionId, modeId: mode.id });
        modes = { ...modes, currentModeId: mode.id };
        return null;
      }
      return `/${name}: this agent offers no ${name} to choose`;
    },
  };
  return { session, conversation };
}
