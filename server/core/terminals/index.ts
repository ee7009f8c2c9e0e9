/**
 * The terminals' room: the pty host's link, what the jobs' screens say, their viewers, input and
 * size, and the jobs found again at a start. What the other rooms use of it.
 */
export type { Viewers } from "./viewers.js";
