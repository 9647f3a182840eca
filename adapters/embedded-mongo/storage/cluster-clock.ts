import { Timestamp } from "bson";

/**
 * Hands out strictly increasing oplog `Timestamp`s (seconds since the epoch, counter within the
 * second), like a replica-set primary. Every committed operation gets its own, so a timestamp
 * identifies one oplog entry and can serve as `operationTime`, `$clusterTime` and (later) the
 * position a change stream resumes from.
 *
 * @example
 * const clock = new ClusterClock();
 * const ts = clock.tick(); // Timestamp({t: 1732237200, i: 1})
 */
export class ClusterClock {
  private seconds = 0;
  private increment = 0;
  private latest: Timestamp;

  constructor(private readonly now: () => number = Date.now) {
    this.latest = this.tick();
  }

  /** A new timestamp greater than every previous one. */
  tick(): Timestamp {
    const seconds = Math.floor(this.now() / 1000);
    if (seconds > this.seconds) {
      this.seconds = seconds;
      this.increment = 1;
    } else {
      // Clock went backwards or same second: keep counting within our latest second.
      this.increment += 1;
    }
    this.latest = new Timestamp({ t: this.seconds, i: this.increment });
    return this.latest;
  }

  /** The most recent timestamp handed out (the server's cluster time). */
  current(): Timestamp {
    return this.latest;
  }

  /**
   * Moves the clock forward so it never hands out a timestamp at or before `ts` (journal
   * recovery restores the clock from the last replayed entry).
   */
  advanceTo(ts: Timestamp): void {
    if (ts.high > this.seconds || (ts.high === this.seconds && ts.low > this.increment)) {
      this.seconds = ts.high;
      this.increment = ts.low;
      this.latest = ts;
    }
  }
}
