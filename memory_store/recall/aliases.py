"""The bilingual alias table of documentation/recall.md#the-alias-table-widens-the-question-not-a-field: policy data for ``relevance``.

Each group is one everyday concept of the relationship-advice domain -- the
standard field vocabulary of ``references/memory-rules.md`` and what people tell
an assistant about the people in their lives -- named in English and Chinese.
The alias table widens the words of the question, never the reach of a field
(documentation/recall.md#the-alias-table-widens-the-question-not-a-field, "search is precise"). So a group has two kinds of term:

- its *heads*, the words that name the concept itself (job, 工作, 职业; hobby,
  爱好, 兴趣). A question holding a head asks about the concept: it matches the
  rows whose value names the group by any of its terms, heads or members, and
  the rows whose field name does ("她做什么工作？" finds ``fact_job``, "what are
  her hobbies?" finds "plays the piano");
- its *members*, in clusters of synonyms and translations: the kinds or
  instances of the concept (hike, 爬山, 徒步; piano, 钢琴). A question holding
  a member only is widened to that cluster and to the group's heads, in values
  ("can he eat sashimi?" finds "对海鲜过敏"), and a field name counts only when
  it names the cluster: "hiking" does not match every row in ``hobby``, nor
  "plays the piano", nor a job at a 游戏 company.

Rules for a group (``references/recall-aliases.md`` is the readable copy; a test
keeps the two identical):

- a general concept that any conversation of the domain may need, never a word
  picked because one test question needs it;
- heads: English words in their base form ("sibling", not "siblings": the
  tokenizer folds suffixes), lowercase ASCII, separated by spaces; English
  phrases (several words, matched as the same words in sequence) separated by
  "; "; Chinese terms separated by spaces, matched as substrings: words,
  usually of two characters or more; a single character only when it almost
  always means the concept (猫, 狗, 岁);
- members (``MEMBERS``): clusters, their English and their Chinese terms apart
  (two texts, the clusters in the same order, separated by "; "; "-" where a
  cluster has no term in that language): English words, English phrases with
  "_" between their words (``milk_tea``), Chinese terms (Chinese characters
  only). A group whose terms all name the concept (birthday, 生日, 出生) has
  no members;
- a term may sit in more than one group when it names both (妈妈: family and
  parents).
"""

from __future__ import annotations

# (name, English head words, English head phrases separated by "; ", Chinese head terms).
# The order is the order of references/recall-aliases.md.
GROUPS: tuple[tuple[str, str, str, str], ...] = (
    (
        "job",
        "job work career occupation profession employer employ workplace",
        "for a living; what do you do",
        "工作 职业 上班 下班 行业 哪一行 哪行 单位 公司 岗位 职位 做什么的 干什么的 工资 退休",
    ),
    ("professions", "", "", ""),
    (
        "education",
        "school college university degree study graduate class course",
        "",
        "学校 大学 学历 专业 毕业 读书 上学 念书 研究生 硕士 博士 本科 读大 读研 课程",
    ),
    ("age", "age", "how old; year old; years old", "年纪 年龄 岁数 多大 岁 属相"),
    ("birthday", "birthday born birth", "", "生日 出生 生辰"),
    (
        "hometown",
        "hometown native",
        "grow up; grew up; come from; comes from",
        "老家 家乡 故乡 籍贯 哪里人 哪儿人 出生地 长大",
    ),
    (
        "city",
        "city location town reside residence address",
        "live in; lives in; living in; based in",
        "城市 所在地 住在 居住 住哪 哪个城市",
    ),
    (
        "home",
        "home apartment house rent neighborhood",
        "",
        "房子 公寓 住在 住处 租房 出租屋 小区 安家 定居 买房 房价",
    ),
    (
        "appearance",
        "appearance tall height weight hair outfit",
        "",
        "长相 外貌 颜值 身高 个子 体重 发型 穿搭 长得",
    ),
    (
        "personality",
        "personality character temperament introvert extrovert shy outgoing temper",
        "",
        "性格 个性 脾气 内向 外向 为人 性子",
    ),
    ("mbti", "mbti", "personality type", "人格 十六型"),
    ("score", "score rating", "out of", "打分 评分 分数 几分 多少分 满分"),
    (
        "family",
        "family relative parent mother father mom mum dad sibling brother sister son daughter child kid grandparent grandma grandpa",
        "",
        "家人 家里 家庭 亲戚 父母 爸妈 爸爸 妈妈 母亲 父亲 老爸 老妈 我妈 我爸 兄弟 姐妹 哥哥 姐姐 弟弟 妹妹 儿子 女儿 孩子 爷爷 奶奶 外公 外婆 姥姥 姥爷",
    ),
    (
        "parents",
        "parent mother father mom mum dad",
        "",
        "父母 爸妈 爸爸 妈妈 母亲 父亲 老爸 老妈 我妈 我爸 家长 二老",
    ),
    ("siblings", "sibling brother sister", "", "兄弟 姐妹 哥哥 姐姐 弟弟 妹妹 独生"),
    ("children", "child children kid son daughter baby", "", "孩子 小孩 儿子 女儿 宝宝 生娃 要娃"),
    ("friends", "friend buddy roommate bestie", "", "朋友 好友 闺蜜 哥们 兄弟们 室友 发小"),
    ("colleagues", "colleague coworker workmate teammate boss", "", "同事 领导 老板 上司"),
    ("pet", "pet animal", "", "宠物 动物 铲屎"),
    ("dating", "dating", "go out; went out", "约会 约我 约她 约他 出去玩 见面"),
    (
        "couple",
        "couple boyfriend girlfriend partner official confess",
        "",
        "恋爱 在一起 交往 男朋友 女朋友 男友 女友 对象 伴侣 表白 确认关系 官宣",
    ),
    ("first_meeting", "", "first met; first meet; how we met", "认识 相识 初见 第一次见 遇到 邂逅"),
    ("stage", "stage relationship single exclusive", "", "阶段 进展 关系 单身 暧昧 稳定 发展到"),
    (
        "marriage",
        "marry marriage wedding spouse husband wife engaged engagement propose",
        "settle down",
        "结婚 成家 婚礼 婚姻 嫁 娶 求婚 订婚 老公 老婆 女婿 媳妇 彩礼 婚",
    ),
    (
        "meet_parents",
        "",
        "meet the parents; meet his parents; meet her parents; meet my parents",
        "见家长 见父母 见过父母 带回家 见家人",
    ),
    (
        "cohabitation",
        "cohabit",
        "live together; move in; moved in",
        "同居 一起住 搬到一起 住在一起",
    ),
    (
        "ex",
        "ex breakup",
        "former partner; past relationship; previous relationship; break up; broke up",
        "前任 前男友 前女友 分手 上一段 前妻 前夫",
    ),
    ("blind_date", "matchmaker", "blind date; set up", "相亲 介绍对象 介绍男朋友 介绍女朋友"),
    (
        "conflict",
        "conflict argue argument fight quarrel clash disagree angry upset mad",
        "",
        "吵架 吵 冲突 矛盾 争吵 闹翻 闹矛盾 生气 发火 不愉快 顶嘴 闹别扭",
    ),
    (
        "repair",
        "apologize apology sorry reconcile forgive",
        "make up; made up",
        "道歉 和好 哄 赔礼 认错 原谅 弥补 说开",
    ),
    (
        "silent_treatment",
        "silent silence ignore withdraw stonewall",
        "cold war",
        "冷战 沉默 不说话 不理 不回 已读不回",
    ),
    (
        "broken_promise",
        "cancel flake",
        "stood up; stand up; no show; broke promise; break promise; promise broken",
        "放鸽子 爽约 失约 食言 没来 鸽了 临时取消",
    ),
    ("promise", "promise commitment", "keep word", "答应 承诺 保证 说到做到 守约 准时"),
    ("agreement", "agreement agree rule", "", "约定 说好 规定 商量 协议 讲好"),
    (
        "boundary",
        "boundary dealbreaker",
        "deal breaker; bottom line; never accept",
        "底线 界限 原则 不接受 不能接受 雷区 介意",
    ),
    (
        "privacy",
        "privacy private snoop",
        "check my phone; go through my phone",
        "隐私 翻看 翻手机 查手机 聊天记录 查岗",
    ),
    ("distance", "distance commute", "long distance", "距离 远 异地 两地 路程 通勤 单程 路上"),
    ("visit", "visit", "come over; drop by; stay over", "来看 看望 探望 拜访 过来 来访 串门"),
    (
        "business",
        "business startup entrepreneur venture store",
        "own business",
        "生意 创业 开店 店铺 店",
    ),
    (
        "money",
        "money pay bill expense cost split salary price budget aa",
        "",
        "钱 花钱 开销 买单 付钱 工资 收入 消费 存款 贵 请客",
    ),
    (
        "schedule",
        "schedule busy weekend weekday routine overtime",
        "free time; night shift",
        "时间 有空 空闲 忙 加班 倒班 夜班 轮班 值班 周末 工作日 作息 排班",
    ),
    ("sleep", "sleep nap tired insomnia", "", "睡觉 补觉 休息 熬夜 失眠 睡"),
    ("plan", "plan goal future intend dream target", "", "目标 计划 打算 希望 将来 未来 以后 规划"),
    (
        "planned_activity",
        "upcoming ticket",
        "planned activity; next date",
        "下次 下一次 约好 票 预约 安排",
    ),
    ("holiday", "holiday festival", "", "节日 假期"),
    ("anniversary", "anniversary milestone", "first time", "纪念日 周年 第一次"),
    (
        "travel",
        "travel trip vacation journey tour flight hotel",
        "",
        "旅行 旅游 出游 度假 出去玩 机票 酒店 自驾",
    ),
    ("invitation", "invite invitation", "ask out; asked out", "邀请 约我 邀"),
    ("gift", "gift surprise", "", "礼物 送礼 惊喜 卡片 寄 送了 送我 送她 送他"),
    ("flower", "flower bouquet", "", "鲜花 花束"),
    ("mail", "mail parcel package deliver", "", "寄 快递 邮寄 包裹"),
    (
        "messages",
        "message reply chat wechat",
        "phone call; video call",
        "消息 回复 回消息 微信 聊天 短信 电话 视频 秒回",
    ),
    (
        "food",
        "food eat diet cuisine meal dish taste flavor flavour restaurant dinner lunch breakfast",
        "",
        "吃 饮食 口味 菜 饭 餐厅 饭店 忌口 爱吃 美食",
    ),
    ("seafood", "seafood", "", "海鲜"),
    ("sweets", "dessert sweet", "", "甜食 甜点 甜品 点心"),
    ("allergy", "allergy allergic intolerant", "", "过敏 忌口 不能吃"),
    ("alcohol", "alcohol drink liquor drunk", "", "酒 喝酒 喝醉"),
    ("smoking", "smoke smoking cigarette vape", "", "烟 抽烟 吸烟 戒烟"),
    ("habit", "habit vice addiction", "", "习惯 嗜好 毛病 癖好 瘾"),
    ("cooking", "cook bake baking kitchen recipe", "", "做饭 烘焙 下厨 厨艺 烤 做菜"),
    ("drinks", "", "", ""),
    (
        "hobby",
        "hobby pastime leisure activity recreation",
        "free time; spare time; for fun",
        "爱好 兴趣 业余 消遣 爱玩 玩什么 休闲 闲暇 娱乐",
    ),
    ("sport", "sport exercise gym fitness workout", "", "运动 健身 锻炼"),
    ("music", "music", "", "音乐"),
    ("art", "art", "", "艺术 美术"),
    ("reading", "book read", "", "看书 阅读"),
    ("shows", "", "", "演出"),
    ("nightlife", "nightlife", "", ""),
    ("game", "game gaming gamer", "video game", "游戏 打游戏"),
    (
        "competition",
        "tournament tourney competition contest championship champion compete race",
        "",
        "比赛 锦标赛 冠军 竞赛 参赛",
    ),
    ("outdoors", "outdoor outdoors nature", "", "户外 大自然"),
    ("writing", "write writing writer author", "", "写作 作家"),
    (
        "volunteering",
        "volunteer charity donate donation fundraiser fundraising nonprofit shelter",
        "community service",
        "志愿 义工 公益 慈善 捐款 捐赠 募捐",
    ),
    (
        "wellbeing",
        "relax relaxation destress unwind calm peaceful therapeutic meditation meditate mindfulness",
        "de stress; stress relief; self care; me time",
        "放松 解压 减压 冥想 散心 休闲",
    ),
    (
        "injury",
        "hurt injury injure accident sick ill illness hospital recover recovery",
        "",
        "受伤 生病 住院 医院 意外 车祸 康复",
    ),
    ("shopping", "buy purchase shop shopping mall", "", "买 购买 购物 逛街 商场"),
    ("celebration", "party celebrate celebration", "", "聚会 派对 庆祝 聚餐"),
    (
        "attachment",
        "attachment anxious avoidant insecure clingy",
        "",
        "依恋 焦虑 回避 安全感 粘人 黏人",
    ),
    (
        "interest_level",
        "invested feelings crush",
        "interest level; into me; care about",
        "投入 上心 在乎 好感 心意 喜欢我 感情",
    ),
    (
        "intent",
        "intent intention motive hint imply purpose",
        "",
        "意图 目的 用意 暗示 试探 想法 心思 心理 心态 动机",
    ),
    ("attitude", "attitude opinion approve", "think of", "态度 看法 意见 认可 反对 支持"),
    (
        "communication",
        "communication advice tone straightforward",
        "",
        "沟通 说话 建议 直接 方式 语气",
    ),
    ("preference", "prefer preference favorite favourite", "", "偏好 喜好 最爱 最喜欢"),
    ("dislike", "dislike hate", "", "讨厌 不喜欢 受不了 反感"),
    ("emotion", "", "", "情绪"),
)

# Group name -> its member clusters: (English, Chinese), each side the clusters in one
# order, separated by "; ", the terms of one cluster by spaces ("-": none on this
# side). English phrases have "_" between their words (``milk_tea``).
MEMBERS: dict[str, tuple[str, str]] = {
    "professions": (
        "teacher; doctor; nurse; engineer; lawyer; accountant; designer; programmer developer; student; manager; -; -",
        "老师 教师; 医生; 护士; 工程师; 律师; 会计; 设计师; 程序员; 学生; 经理; 公务员; 销售",
    ),
    "mbti": (
        "intj; intp; entj; entp; infj; infp; enfj; enfp; istj; isfj; estj; esfj; istp; isfp; estp; esfp",
        "-; -; -; -; -; -; -; -; -; -; -; -; -; -; -; -",
    ),
    "pet": (
        "cat kitten; dog puppy pup; turtle; bird; parrot; rabbit bunny; hamster",
        "猫 猫咪; 狗 狗狗; 乌龟; 鸟; 鹦鹉; 兔子; 仓鼠",
    ),
    "holiday": (
        "christmas; valentine; thanksgiving; new_year; spring_festival chinese_new_year; -; -; -; -; -; -; -; -; -",
        "圣诞; 情人节 七夕; -; 新年 元旦; 春节 过年 除夕; 国庆; 中秋; 端午; 清明; 教师节; 母亲节; 父亲节; 寒假; 暑假",
    ),
    "flower": (
        "rose; sunflower; tulip; lily",
        "玫瑰; 向日葵; 郁金香; 百合",
    ),
    "food": (
        "spicy; -; -; -; -; -",
        "辣; 川菜; 湘菜; 粤菜; 点心; 零食",
    ),
    "seafood": (
        "shrimp prawn; crab; lobster; fish; oyster; sushi; sashimi; -",
        "虾; 蟹; -; 鱼; 生蚝; 寿司; 刺身; 日料",
    ),
    "sweets": (
        "cake; pastry; cookie; candy; chocolate",
        "蛋糕 糕; -; 饼干 曲奇; 糖; 巧克力",
    ),
    "alcohol": (
        "beer; wine; -",
        "啤酒; 红酒; 白酒",
    ),
    "drinks": (
        "coffee cafe; tea; milk_tea",
        "咖啡; 茶; 奶茶",
    ),
    "hobby": (
        "sport exercise; hike; camp; swim; -; yoga; dance; paint draw; pottery; photography; music; sing; guitar; piano; read; write; cook; bake; game; garden gardening; fishing; -; -; knit",
        "运动 健身; 爬山 徒步; 露营; 游泳; 跑步; 瑜伽; 跳舞; 画画; -; 摄影; 音乐; 唱歌; 吉他; 钢琴; 看书 阅读; 写作; 做饭; 烘焙; 游戏; 园艺; 钓鱼; 攀岩; 书法; 织毛衣",
    ),
    "sport": (
        "climb climbing bouldering; swim; -; yoga; cycling; dance; marathon; -",
        "攀岩; 游泳; 跑步; 瑜伽; 骑行; 跳舞; 马拉松; 球",
    ),
    "music": (
        "song sing; concert; band; guitar; piano; violin; drum; album vinyl; -; -",
        "歌 唱; 演唱会; 乐队; 吉他; 钢琴; 小提琴; 鼓; 唱片; 民谣; 摇滚",
    ),
    "art": (
        "paint painting draw drawing; museum; exhibition gallery; photography; calligraphy; pottery ceramic; sculpture; craft; mural",
        "画; 博物馆; 展览 画展; 摄影; 书法; 陶艺; 雕塑; 手工; -",
    ),
    "reading": (
        "novel; library; -",
        "小说; 图书馆; 书店",
    ),
    "shows": (
        "movie film cinema; theater theatre drama; opera",
        "电影 影院; 话剧 剧 看剧; 京剧",
    ),
    "nightlife": (
        "bar pub; club nightclub; karaoke ktv",
        "酒吧; 夜店 蹦迪; -",
    ),
    "game": (
        "board_game; console; rpg; -; -",
        "桌游; -; -; 电竞; 手游",
    ),
    "outdoors": (
        "camp camping; hike hiking trail mountain mountaineering; beach; lake; park; picnic; fishing; kayak",
        "露营; 徒步 爬山 登山; 海边; 湖; 公园; 野餐; 钓鱼; -",
    ),
    "writing": (
        "story; poem poetry; screenplay script; blog; journal diary; -",
        "-; 诗; 剧本; 博客; 日记; 小说 写小说",
    ),
    "emotion": (
        "sad; happy; cry; hurt; lonely; stress",
        "难过 伤心; 开心; 哭; 委屈; 孤独; 压力",
    ),
}
