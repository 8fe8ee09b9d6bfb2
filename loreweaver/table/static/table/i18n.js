// The page's own words in English and Chinese. What the server says arrives already
// in the language the join asked for.
const WORDS = {
  en: {
    title: "Loreweaver table", key: "Access key", name: "Your name (optional)", language: "Language",
    join: "Join the table", skip: "Skip to the input", sheet: "Sheet", story: "Story",
    "say-label": "What do you do?", "say-placeholder": "What do you do? (.help for commands)",
    upload: "Upload a file", send: "Send", character: "Character", party: "Party",
    initiative: "Initiative", scene: "Scene", variables: "Module", pregens: "Characters to claim",
    usage: "Model usage", gallery: "Pictures", audio: "Sound", "audio-on": "Turn sound on",
    connecting: "Connecting…", connected: "Connected", reconnecting: "Connection lost, reconnecting…",
    carrying: "Carrying", "carrying-nothing": "Nothing yet.", money: "{amount} {currency}", equipped: "equipped",
    quests: "Quests", "quest-in_progress": "in progress", "quest-completed": "completed", "quest-failed": "failed",
    "keepers-only": "keepers only",
    online: "At the table now", "role-keeper": "keeper", "role-player": "player", joined: "{name} joined the table.", left: "{name} left the table.",
    "delete-key-confirm": "Delete {name}'s key? They are closed at once and cannot join with it again.",
    yes: "yes", no: "no", leave: "Leave", "leave-title": "Leave the table: this tab forgets the key", "too-fast-again": "You are sending too fast ({n} lines refused). Your last line is back in the box: send it again in a moment.",
    "chars-left": "{used} of {max} characters",
    busy: "{actor}: the Keeper is thinking…", "busy-activity": "{actor}: the Keeper is {activity}…",
    reading: "reading", dice: "rolling", cast: "voicing someone", bookkeeping: "keeping notes",
    "busy-timeout": "No answer for a while; the Keeper may still be working.",
    "sample-title": "Welcome to your table",
    "sample-about": "No model is connected, so the offline Keeper plays: it narrates in a few lines, rolls real dice for your checks and speaks for the people you meet. It can run a short sample adventure, The Lamp at Gull Rock, for one to four players (about twenty minutes).",
    "sample-start": "Start the sample adventure", "sample-or": "You run this table as its keeper: start the adventure here, then invite players from Keeper screens (the button at the top), where the model, backups and skills are too. .help lists every command.",
    keeper: "AI Keeper", you: "you", "no-character": "No character yet: try .coc or .dnd.",
    "keeper-no-character": "You run the table: a keeper needs no character. Invite players and set the room up from Keeper screens.",
    "first-title": "Welcome to {room}", "first-systems": "Rules at this table: {systems}.", "list-and": ", ",
    "first-about": "Here you play a character: the Keeper tells the story, you say what your character does, and the dice decide how it goes.",
    "first-make": "Make your character", "example-name": "Ada Lowell",
    "first-make-hint": "Each button makes a character under your own name; for another name, type it after the command: {example}",
    "first-claim": "Or claim one of this module's characters",
    "first-then": "Then type what your character does, in plain words. .help lists every command.",
    "roll-loss": "loses {loss}", "roll-loss-left": "loses {loss} ({remaining} left)",
    claim: "Claim", "claimed-by": "claimed", portrait: "Set as my portrait", open: "Open",
    uploading: "Uploading {name}… {percent}%", uploaded: "{name} is in the room.",
    "upload-refused": "{name} was not uploaded: {message}", "bad-hash": "A file did not match its hash.",
    "protocol-mismatch": "This page speaks protocol {client}; the server speaks {server}. Refusing to play.",
    "key-missing": "Paste the access key your keeper gave you.", volume: "{layer} volume",
    bgm: "Music", ambience: "Ambience", sfx: "Effects", "scripts-off": "This panel runs in the rich client only.",
    context: "context {used} of {window} tokens; in {input}, out {output}",
    "keeper-screens": "Keeper screens", invites: "Invites", model: "Model", backups: "Backups", skills: "Skills",
    rules: "Rules", panels: "Panels", close: "Close", rename: "Rename", "make-player": "Make player",
    "make-keeper": "Make keeper", delete: "Delete", role: "Role", "key-name": "Name on the key", mint: "Mint a key", invite: "Invite link",
    copy: "Copy", copied: "Copied.", minted: "A new {role} key for {name}: copy the link now, it is shown only once.",
    provider: "Provider", "chat-model": "Model", endpoint: "Endpoint (empty: the provider's)", "api-key": "API key",
    save: "Save", "offline-keeper": "No usable model: the offline Keeper plays.", "built-in": "built in",
    "make-char": "{word} makes a character", "desk-empty": "No sounds in this room yet. Upload an audio file with ⇪ below the story: it appears here, to play as music, ambience or an effect.",
    export: "Back up the room now", import: "Restore", reset: "Reset",
    "reset-scope": "Reset what", "reset-confirm": "Reset the room now? No backup is written first: back the room up now if you may want it back.",
    "scope-story": "the story", "scope-chars": "the story and the characters", "scope-all": "everything",
    "room-op-export": "Backed up as {path}.", "room-op-import": "Restored from {path}. The game as it was is saved as {undo}: restore {undo} to undo this.", "room-op-reset": "The room was reset.",
    "room-op-delete": "The room's data was deleted.", "panels-help": "Packs installed on this server: turn their panels on or off in this room.",
    enable: "Turn on", disable: "Turn off", "pack-on": "on", "pack-off": "off", "panel-count": "{count} panels",
    "no-packs": "No pack is installed on this server.", "no-backups": "No backup of this room yet.", loading: "Loading…",
    "list-failed": "The list could not be read; close and open this screen again.", download: "Download",
    "download-failed": "{name} could not be downloaded.", "no-provider": "none: the offline Keeper",
    "model-sample-keeper": "the offline Keeper: answers every line", "model-sample-adventure": "the offline Keeper, offering the sample adventure",
    "forget": "Forget", "forget-seat": "Forget {name}'s key for {room}", "rejoin-title": "Tables you left in this browser",
    "rejoin-as": "Rejoin {room} as {name}", "rejoin-as-name": "Rejoin as {name}", "leave-confirm-title": "Leave the table?",
    "leave-confirm-about": "This tab forgets the key. This browser keeps it for you: its join screen offers to rejoin until you forget it there.",
    stay: "Stay", "now-playing": "Now playing", "layer-is": "{layer}: ", paused: " (paused)", untitled: "untitled",
    "play-on": "Play {name} as {layer}", "stop-layer": "Stop {layer}", "skill-on": "{name} is on in this room.", "skill-off": "{name} is off in this room.",
    "keeper-offline": "Offline Keeper (no model)",
    "restore-confirm": "Restore {name}? The room's story, characters and settings are replaced by the backup's. The game as it is now is saved first as a backup named before-restore-<date>, which undoes this.",
  },
  zh: {
    title: "Loreweaver 桌面", key: "访问密钥", name: "你的名字（可选）", language: "语言",
    join: "加入桌面", skip: "跳到输入框", sheet: "角色卡", story: "故事",
    "say-label": "你要做什么？", "say-placeholder": "你要做什么？（输入 .help 查看指令）",
    upload: "上传文件", send: "发送", character: "角色", party: "队伍",
    initiative: "先攻", scene: "场景", variables: "模组", pregens: "可认领的角色",
    usage: "模型用量", gallery: "图片", audio: "声音", "audio-on": "打开声音",
    connecting: "正在连接…", connected: "已连接", reconnecting: "连接中断，正在重连…",
    carrying: "随身物品", "carrying-nothing": "还什么都没有。", money: "{amount} {currency}", equipped: "已装备",
    quests: "任务", "quest-in_progress": "进行中", "quest-completed": "已完成", "quest-failed": "已失败",
    "keepers-only": "仅守秘人可见",
    online: "在座的人", "role-keeper": "守秘人", "role-player": "玩家", joined: "{name} 来到了桌边。", left: "{name} 离开了桌子。",
    "delete-key-confirm": "删除 {name} 的密钥？对方会立刻被断开，并且不能再用它加入。",
    yes: "是", no: "否", leave: "离开", "leave-title": "离开这张桌子：本标签页将忘记密钥", "too-fast-again": "发送太快了（已拒绝 {n} 行）。你最后一行已放回输入框：稍等片刻再发送。",
    "chars-left": "已输入 {used} / {max} 字",
    busy: "{actor}：守秘人正在思考…", "busy-activity": "{actor}：守秘人正在{activity}…",
    reading: "查阅", dice: "掷骰", cast: "扮演角色", bookkeeping: "记录",
    "busy-timeout": "许久没有回应；守秘人可能仍在处理。",
    "sample-title": "欢迎来到你的牌桌",
    "sample-about": "尚未接入模型，由离线守秘人主持：它会简短叙述、为你们的检定掷真实的骰子，并为你们遇到的人物发言。它可以带一到四名玩家玩一个简短的示例冒险《海鸥礁的灯》（约二十分钟）。",
    "sample-start": "开始示例冒险", "sample-or": "你是这张桌子的守秘人：在这里开始冒险，然后在「守秘人面板」（页面顶部的按钮）邀请玩家，模型、备份和技能也在那里设置。输入 .help 查看全部指令。",
    keeper: "AI 守秘人", you: "你", "no-character": "还没有角色：试试 .coc 或 .dnd。",
    "keeper-no-character": "你主持这张桌子：守秘人不需要角色。在「守秘人面板」邀请玩家、设置房间。",
    "first-title": "欢迎来到 {room}", "first-systems": "本桌的规则：{systems}。", "list-and": "、",
    "first-about": "在这里你扮演一名角色：守秘人讲述故事，你说出角色要做什么，由骰子决定结果。",
    "first-make": "创建你的角色", "example-name": "林雨",
    "first-make-hint": "每个按钮都会用你自己的名字创建角色；想用别的名字，就写在指令后面：{example}",
    "first-claim": "或者认领本模组的一名角色",
    "first-then": "然后用平常的话写下你的角色要做什么。输入 .help 查看全部指令。",
    "roll-loss": "失去 {loss}", "roll-loss-left": "失去 {loss}（剩余 {remaining}）",
    claim: "认领", "claimed-by": "已被认领", portrait: "设为我的头像", open: "打开",
    uploading: "正在上传 {name}… {percent}%", uploaded: "{name} 已上传到房间。",
    "upload-refused": "{name} 未能上传：{message}", "bad-hash": "有文件与它的哈希不符。",
    "protocol-mismatch": "本页面使用协议 {client}，服务器使用 {server}。拒绝连接。",
    "key-missing": "请粘贴守秘人给你的访问密钥。", volume: "{layer}音量",
    bgm: "音乐", ambience: "环境音", sfx: "音效", "scripts-off": "此面板只在富客户端中运行。",
    context: "上下文 {used}/{window} 词元；输入 {input}，输出 {output}",
    "keeper-screens": "守秘人面板", invites: "邀请", model: "模型", backups: "备份", skills: "技能",
    rules: "规则", panels: "面板", close: "关闭", rename: "改名", "make-player": "设为玩家",
    "make-keeper": "设为守秘人", delete: "删除", role: "身份", "key-name": "密钥上的名字", mint: "生成密钥", invite: "邀请链接",
    copy: "复制", copied: "已复制。", minted: "为 {name} 生成了新的{role}密钥：请现在复制链接，它只显示这一次。",
    provider: "服务商", "chat-model": "模型", endpoint: "接口地址（留空：服务商默认）", "api-key": "API 密钥",
    save: "保存", "offline-keeper": "没有可用的模型：由离线守秘人主持。", "built-in": "内置",
    "make-char": "用 {word} 创建角色", "desk-empty": "本房间还没有声音。用故事下方的 ⇪ 上传音频文件，它会出现在这里，可作为音乐、环境音或音效播放。",
    export: "立即备份房间", import: "恢复", reset: "重置",
    "reset-scope": "重置范围", "reset-confirm": "现在重置房间吗？重置前不会自动备份：如果以后还想找回，请先备份房间。",
    "scope-story": "故事", "scope-chars": "故事和角色", "scope-all": "全部",
    "room-op-export": "已备份为 {path}。", "room-op-import": "已从 {path} 恢复。恢复前的游戏已保存为 {undo}：恢复 {undo} 即可撤销。", "room-op-reset": "房间已重置。",
    "room-op-delete": "房间数据已删除。", "panels-help": "本服务器已安装的内容包：在本房间开启或关闭它们的面板。",
    enable: "开启", disable: "关闭", "pack-on": "已开启", "pack-off": "未开启", "panel-count": "{count} 个面板",
    "no-packs": "本服务器没有安装内容包。", "no-backups": "本房间还没有备份。", loading: "加载中…",
    "list-failed": "无法读取列表；请关闭后重新打开此界面。", download: "下载",
    "download-failed": "{name} 下载失败。", "no-provider": "无：离线守秘人",
    "model-sample-keeper": "离线守秘人：回应每一句", "model-sample-adventure": "离线守秘人，并提供示例冒险",
    "forget": "忘记", "forget-seat": "忘记 {room} 中 {name} 的密钥", "rejoin-title": "你在此浏览器中离开的桌子",
    "rejoin-as": "以 {name} 的身份重新加入 {room}", "rejoin-as-name": "以 {name} 的身份重新加入", "leave-confirm-title": "离开这张桌子？",
    "leave-confirm-about": "本标签页将忘记密钥。浏览器会替你保留它：加入界面会提供重新加入，直到你在那里选择忘记。",
    stay: "留下", "now-playing": "正在播放", "layer-is": "{layer}：", paused: "（已暂停）", untitled: "无标题",
    "play-on": "将 {name} 作为{layer}播放", "stop-layer": "停止{layer}", "skill-on": "本房间已开启 {name}。", "skill-off": "本房间已关闭 {name}。",
    "keeper-offline": "离线守秘人（未接入模型）",
    "restore-confirm": "恢复 {name} 吗？房间的故事、角色和设置将被备份中的内容替换。恢复前会先把当前的游戏保存为名为 before-restore-<日期> 的备份，用它即可撤销。",
  },
};

let locale = "en";

export function setLocale(next) {
  locale = WORDS[next] ? next : "en";
  document.documentElement.lang = locale === "zh" ? "zh-Hans" : "en";
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of document.querySelectorAll("[data-i18n-placeholder]")) {
    element.placeholder = t(element.dataset.i18nPlaceholder);
  }
  for (const element of document.querySelectorAll("[data-i18n-title]")) {
    element.title = t(element.dataset.i18nTitle);
  }
  for (const element of document.querySelectorAll("[data-i18n-volume]")) {
    element.setAttribute("aria-label", t("volume", { layer: t(element.dataset.i18nVolume) }));
  }
}

export function currentLocale() {
  return locale;
}

export function t(word, values = {}) {
  const text = WORDS[locale][word] ?? WORDS.en[word] ?? word;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// A `{en, zh}` label (panels, pack titles) in the page's language.
export function pick(label) {
  if (label && typeof label === "object") return label[locale] ?? label.en ?? Object.values(label)[0] ?? "";
  return label ?? "";
}
