// What a character carries and the room's quests, from the additive `state` fields this
// server sends (docs/decisions.md, "Items, money and quests"): a client that does not
// know them ignores them, so both parts draw nothing when the fields are absent.
import { t } from "./i18n.js";
import { element } from "./render.js";

/** The owner's items and money, for the character part of the sidebar (empty when the
 * server sends no belongings). */
export function belongings(character) {
  if (!Array.isArray(character.items) && character.money === undefined) return [];
  const title = element("h3", "belongings-title", t("carrying"));
  const money = character.money === undefined ? [] : [element("p", "money", t("money", { amount: character.money, currency: character.currency ?? "" }))];
  const items = character.items ?? [];
  if (items.length === 0) return [title, ...money, element("p", "hint", t("carrying-nothing"))];
  const list = element("ul", "items");
  for (const item of items) {
    const entry = element("li", item.quantity === 0 ? "item used-up" : "item");
    const name = element("bdi", "name", item.name); // written by players: isolated, never markup
    entry.append(name, item.quantity === 1 ? "" : ` ×${item.quantity}`);
    if (item.equipped) entry.append(element("span", "tag", t("equipped")));
    if (item.description) entry.title = item.description;
    list.append(entry);
  }
  return [title, ...money, list];
}

/** The room's quests as list items: name, status and description (a keeper's secret ones
 * marked). */
export function questItems(quests) {
  return quests.map((quest) => {
    const entry = element("li", `quest ${quest.status}`);
    entry.append(element("bdi", "name", quest.name), element("span", "tag", t(`quest-${quest.status}`)));
    if (quest.secret) entry.append(element("span", "tag secret", t("keepers-only")));
    if (quest.description) entry.append(element("p", "hint", quest.description));
    return entry;
  });
}
