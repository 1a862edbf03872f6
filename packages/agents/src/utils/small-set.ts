/**
 * A set that nearly always holds at most one member, such as the waits of a playout step (one per audio
 * frame). Its first member lives in a field and a `Set` is made only while two or more are held:
 * adding and then deleting the only member of a `Set` reallocates its table each time, and a reply does
 * it for every frame.
 *
 * Members come back in insertion order, as a `Set`'s would: the field always holds the oldest one.
 */
export class SmallSet<T extends object> {
  private first: T | undefined;
  private rest: Set<T> | undefined;

  get size(): number {
    return (this.first === undefined ? 0 : 1) + (this.rest?.size ?? 0);
  }

  add(member: T): void {
    if (this.first === member || this.rest?.has(member)) return;
    // The field is only filled when nothing else is held, so it never holds a younger member.
    if (this.first === undefined && !this.rest?.size) {
      this.first = member;
      return;
    }
    this.rest ??= new Set();
    this.rest.add(member);
  }

  delete(member: T): boolean {
    if (this.first === member) {
      this.first = undefined;
      return true;
    }
    return this.rest?.delete(member) ?? false;
  }

  /** The members now, oldest first: a copy, so callbacks may change the set while it is walked. */
  toArray(): T[] {
    const members = this.first === undefined ? [] : [this.first];
    if (this.rest) for (const member of this.rest) members.push(member);
    return members;
  }
}
