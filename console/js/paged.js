// A list loaded page by page with the API's own tokens (docs/api.md#lists): the first
// page, then "Load more" follows the answer's Link (or X-Next-Token) until there is none.

export const PAGE_SIZE = 50;

export class PagedList {
  constructor(api) {
    this.api = api;
    this.items = [];
    this.next = null;
    this.asked = 0;  // loads asked for: only the latest one's answer is kept
    this.paging = null;  // the load whose next page is on its way
  }

  /** The first page; an answer (or a failure) that comes after a later load was asked
   * (another filter chosen meanwhile: a busy gateway answers in any order) is dropped,
   * and false. The list being replaced goes on no further meanwhile. */
  async load(path, query = {}) {
    const asked = ++this.asked;
    this.next = null;
    let page;
    try {
      page = await this.api.list(path, {...query, limit: PAGE_SIZE});
    } catch (error) {
      if (asked !== this.asked) return false;
      throw error;
    }
    if (asked !== this.asked) return false;
    this.items = page.items;
    this.next = page.next;
    return true;
  }

  /** The next page of the latest load, once (a second ask while it is on its way adds
   * nothing); true when it added one. */
  async more() {
    const asked = this.asked;
    if (!this.next || this.paging === asked) return false;
    this.paging = asked;
    try {
      const page = await this.api.page(this.next);
      if (asked !== this.asked) return false;  // loaded anew meanwhile
      this.items = this.items.concat(page.items);
      this.next = page.next;
      return true;
    } catch (error) {
      if (asked !== this.asked) return false;
      throw error;
    } finally {
      if (this.paging === asked) this.paging = null;
    }
  }

  replace(item) {
    this.items = this.items.map((each) => (each.id === item.id ? item : each));
  }

  remove(id) {
    this.items = this.items.filter((each) => each.id !== id);
  }

  /** A created item belongs at the end (ascending ids), once the last page is loaded. */
  added(item) {
    if (!this.next) this.items = this.items.concat([item]);
  }
}
