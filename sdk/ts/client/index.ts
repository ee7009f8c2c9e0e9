export { DaemonClient, type DaemonClientOptions, defaultSocket, type Subscribed } from "./daemon-client.js";
export { SocketClient, socketAnswers } from "./socket-client.js";
