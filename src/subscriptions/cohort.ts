/**
 * Poller ▸ Cohort ▸ Subscriber. A cohort is the set of subscribers of one statement whose
 * parameter values are equal, so one row of the multiplexed statement answers all of them.
 * Each subscriber remembers the hash of the last result it was sent: a poll pushes a result only
 * to the subscribers whose hash differs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { varsElement } from './multiplexedQuery.js';

export interface Subscriber {
  /** Hash of the last result pushed to this subscriber. */
  lastHash: string | undefined;
  /** Sends a result (`{"data":…}` or `{"errors":…}` JSON text) to the client. */
  push(body: string): void;
  /**
   * The schema cache changed under the subscriber's poller (metadata was reloaded): plan the
   * subscription again (it may now be refused) and subscribe anew; `lastHash` is kept so an
   * unchanged result is not sent twice.
   */
  replan(): void;
  /** A streaming subscription's cursor: the last value delivered (kept across re-plans). */
  streamCursor?: unknown;
}

export class Cohort {
  readonly id = randomUUID();
  readonly subscribers = new Set<Subscriber>();
  /** This cohort's variables as an element of the statement's `json[]` literal. */
  readonly varsElement: string;
  /** Change-driven pollers: the last generation at which a change concerned this cohort alone (narrowing.ts). */
  changedGen = 0;

  /**
   * Change-driven pollers: the change generation completed before this cohort's last query
   * started (changeWatcher.ts); the cohort runs again once one of its tables changed later.
   */
  constructor(readonly varsJson: string, public seenGen = 0) {
    this.varsElement = varsElement(varsJson);
  }

  /** Pushes `body` to every subscriber that has not seen it yet. */
  deliver(body: string, hash = resultHash(body)): void {
    for (const s of this.subscribers) {
      if (s.lastHash !== hash) {
        s.lastHash = hash;
        s.push(body);
      }
    }
  }
}

export const resultHash = (body: string): string => createHash('sha1').update(body).digest('base64');
