/** The few pages the server writes itself: how to log in, and the hub when it is not built. */

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { max-width: 40rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }
  code { background: color-mix(in srgb, currentColor 10%, transparent); padding: 0.1rem 0.3rem; border-radius: 4px; }
</style></head>
<body>${body}</body></html>
`;

export const loginPage = () =>
  page(
    "roost: log in",
    `<h1>roost</h1>
<p>This hub needs its token. On the machine roost runs on, run</p>
<p><code>roost open</code></p>
<p>and open the login link it prints. (A read-only link for a dashboard: <code>roost token --read-only --name dash</code>.)</p>`,
  );

export const notBuiltPage = () =>
  page(
    "roost",
    `<h1>roost</h1>
<p>The daemon is running, but the browser hub is not built in this install. Run <code>npm run build</code>
in roost's folder, or use the API: <code>GET /api/list</code> (see docs/http.md).</p>`,
  );
