/**
 * `/context`: the next request's estimated size, part by part, against the model's window and
 * where that window came from (the same text as ACP's `/context`, context-report.ts). Reads the
 * session; never sends a request.
 */
import { contextReport } from '../../context/context-report.js';
import type { SlashCommand } from './contract.js';

export const contextCommand: SlashCommand = {
  name: 'context',
  description:
    "the next request's size by part (system, tools, messages, results) against the window",
  async run(_args, { session, store }) {
    store.add({ kind: 'notice', tone: 'info', text: await contextReport(session.current) });
  },
};
