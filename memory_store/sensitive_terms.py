"""The words and names the sensitive-content detectors look for, as data (documentation/privacy.md).

A leaf: it imports nothing of the package, and only the write path (writes/sensitive.py)
imports it, so the read paths never pay for these tables. Long lists of single words are
strings separated by spaces (as policy.py's cue words), split where they are used.
"""

from __future__ import annotations

# Sensitive field names, by detector. A field is split on "_" into words; a
# fragment of one word matches that word, its plural, or the word run together
# with a suffix such as "no", "number", "id" or "code" ("phonenumber"); a
# fragment with "_" matches a run of words. Refusing a harmless field name is
# cheap, storing a secret is not.
SENSITIVE_FIELD_FRAGMENTS: dict[str, tuple[str, ...]] = {
    "credential": (
        "password",
        "passwd",
        "passcode",
        "pwd",
        "pin",
        "token",
        "secret",
        "credential",
        "apikey",
        "api_key",
        "private_key",
        "otp",
        "cvv",
        "cvc",
        "wifi_code",
        "door_code",
        "alarm_code",
        "gate_code",
        "lock_code",
        "access_code",
        "entry_code",
        "garage_code",
        "safe_code",
        "unlock_code",
    ),
    "financial_account": (
        "bank",
        "iban",
        "card_number",
        "cardno",
        "credit_card",
        "debit_card",
        "account_number",
        "routing",
        "swift",
        "alipay",
        "wechat_pay",
        "creditcard",
        "debitcard",
    ),
    "government_id": (
        "id_card",
        "idcard",
        "id_number",
        "identity_card",
        "passport",
        "ssn",
        "social_security",
        "national_id",
        "driver_license",
        "drivers_license",
        "licence_number",
    ),
    "home_address": ("address", "home_addr", "street_address", "postcode", "zip_code", "zipcode"),
    "contact": ("phone", "mobile", "telephone", "cellphone", "email", "e_mail", "wechat_id", "qq"),
    "medical": (
        "diagnosis",
        "medical",
        "medication",
        "medicine",
        "prescription",
        "disease",
        "illness",
        "health",
        "therapy",
        "symptom",
        "treatment",
        "hiv",
        "std",
        "meds",
        "disorder",
        "surgery",
        "pregnancy",
        "psychiatric",
        "psychiatrist",
    ),
    "sexual": ("sexual", "sex_life", "sex_position", "fetish", "kink", "nude"),
}

# "Address" also means how a person likes to be addressed (称呼): these runs of
# words are taken out of a field name before the fragments above are matched, so
# "preferred_address" passes while "address" and "home_address" do not.
FORM_OF_ADDRESS_RUNS: tuple[str, ...] = (
    "preferred_address",
    "address_as",
    "forms_of_address",
    "form_of_address",
    "how_to_address",
    "address_form",
)

# A field with the word "condition" is medical when another of its words names a
# health matter: one of the medical fragments above or one of these conditions
# (``condition_anxiety``, ``health_condition``); ``agreement_conditions`` is not.
HEALTH_CONDITION_WORDS: tuple[str, ...] = (
    "anxiety",
    "depression",
    "adhd",
    "autism",
    "bipolar",
    "ptsd",
    "ocd",
    "cancer",
    "diabetes",
    "asthma",
    "epilepsy",
    "insomnia",
    "disorder",
    "mental",
    "chronic",
    "heart",
    "psychiatric",
)

# A health word run together with another (``mentalhealth``, ``healthhistory``,
# ``physiotherapy``) is still one: a medical fragment of six or more letters inside a
# word counts when what follows it is a suffix below or one of these.
MEDICAL_COMPOUND_TAILS = (  # separated by spaces
    "history record records info data issue issues problem problems status notes plan plans"
)

SENSITIVE_FIELD_SUFFIXES: tuple[str, ...] = (
    "",
    "s",
    "es",
    "no",
    "num",
    "number",
    "id",
    "code",
    "card",
    "account",
)

# Words that announce a password, PIN or passcode in a value ("password is …",
# "pw: …", "PIN 4821", "密码是…"); the secret itself must follow (sensitive.py), so
# "she forgot her password again" passes.
SECRET_WORDS_EN: tuple[str, ...] = (
    "password",
    "passwd",
    "passcode",
    "passphrase",
    "pwd",
    "pw",
    "pin",
    "pin code",
    "pin number",
    "wifi password",
)
# Matched as written, in lower case, in Chinese (simplified and traditional), Japanese and
# Korean: after one of them letters, digits and symbols are the secret ("PIN码是 4821").
SECRET_WORDS_ZH = (  # separated by spaces
    "登录密码 登入密碼 支付密码 支付密碼 密码 密碼 口令 暗码 暗碼 验证码 驗證碼 pin码 pin碼 "
    "门禁码 門禁碼 开门码 開門碼 开锁码 開鎖碼 解锁码 解鎖碼 锁屏码 鎖屏碼 "
    "パスワード 暗証番号 비밀번호 암호"
)
# Of those, the words after which a secret may also be written in Chinese characters
# ("密码是芝麻开门"), when "是", "为", ":" or "=" links them: a code of digits or a
# verification code is never a phrase.
SECRET_WORDS_PHRASE = (  # separated by spaces
    "登录密码 登入密碼 支付密码 支付密碼 密码 密碼 口令 暗码 暗碼 パスワード 비밀번호 암호"
)
# What a sentence says about a password rather than giving it, when it starts the
# words after the link ("密码是她的生日", "密码是多少", "密码是六位数字"): not the secret.
SECRET_NOT_A_SECRET_ZH = (  # separated by spaces
    "什么 什麼 啥 多少 几 幾 哪 错 錯 对 對 正确 正確 不 没 沒 忘 改 换 換 重置 很 太 挺 好 "
    "比较 比較 一样 一樣 相同 同一 一个 一個 空 默认 默認 纯 純 数字 數字 字母 位 六位 四位 "
    "八位 随机 隨機 安全 简单 簡單 复杂 複雜 弱 强 強 她 他 我 你 它 自己 之前 以前 原来 原來 "
    "新 旧 舊 老 生日 名字 手机 手機 一串 一句 保密 秘密"
)
# After "password is", these ordinary words are not the secret ("her password is weak").
SECRET_NOT_A_SECRET = (  # separated by spaces
    "a an the my her his their your our same weak strong wrong incorrect correct expired "
    "changed reset too not still saved required needed long short easy hard simple secure "
    "forgotten lost set shared written stored unknown private secret"
)
# A passphrase after "password:" is four or more plain words, none of them one of these
# (or of the words above but for the first): "password: correct horse battery staple" is
# one, "password: not set up yet" is not.
PASSPHRASE_BREAKERS = (  # separated by spaces
    "i me we us you he him she it they them is are was were be been am has have had do "
    "does did will would can could should to of in on at for from by with and or but so "
    "if then than that this these those again yet up down out last next week month year "
    "yesterday today tomorrow ago now because"
)
# A credential given for a named account, device, door or network without the word
# "password" (documentation/privacy.md): after one of these words and "is", "was", ":",
# "=" or "是", a token of six or more characters mixing letters with digits or symbols
# ("HR portal: Tulip#2291", "wifi is bluefish77").
ACCOUNT_WORDS = (  # separated by spaces
    "account accounts login logins log-in logon sign-in signin credentials creds portal "
    "wifi wi-fi wlan router network vpn admin server ssh icloud gmail netflix steam "
    "unlock lockbox keypad"
)
# "<thing> code is 4821": a code for one of these is a credential, digits alone too
# ("the alarm code is 4821", "wifi code is bluefish77"); a zip, area, dress or promo
# code is not one of them.
CODE_THINGS = (  # separated by spaces
    "wifi wi-fi alarm door gate garage safe lock locker padlock keypad entry access "
    "building apartment unlock lockbox security router phone laptop computer ipad"
)
CODE_WORDS: tuple[str, ...] = ("code", "codes", "pin", "passcode", "combination", "combo")

# A value that names a diagnosis, a health condition or a medicine is about health
# (documentation/privacy.md), with or without a verb of diagnosis ("has ADHD",
# "takes Adderall", "她有抑郁症"). English terms are matched as whole words (a term
# with a space, hyphen or apostrophe as a phrase), Chinese ones as written. Words
# that also have an ordinary sense are left out or given as a phrase: "cancer" is a
# star sign ("breast cancer" is not), "the Great Depression" history, "HIV" a charity's
# cause, "stroke" a swim, "lithium" a battery, "安定" calm, "肿瘤科" a doctor's ward;
# a feeling ("anxious", "有点焦虑", "抑郁") is no diagnosis.
MEDICAL_PHRASES_EN: tuple[str, ...] = (
    "diagnosed with",
    "diagnosed as",
    "diagnosis of",
    "anxiety disorder",
    "panic disorder",
    "bipolar disorder",
    "depressive disorder",
    "eating disorder",
    "personality disorder",
    "obsessive-compulsive disorder",
    "obsessive compulsive disorder",
    "stress disorder",
    "mood disorder",
    "attention deficit",
    "schizophrenia",
    "antidepressant",
    "antidepressants",
    "antipsychotic",
    "antipsychotics",
    "ssri",
    "ssris",
    "chemotherapy",
)
HEALTH_CONDITION_NAMES_EN = (  # separated by spaces
    "adhd autism autistic asperger aspergers ptsd ocd bpd bipolar schizophrenic "
    "anorexia anorexic bulimia bulimic dyslexia dyslexic insomnia dementia alzheimers "
    "parkinsons epilepsy epileptic diabetes diabetic asthma hypertension hypothyroidism "
    "hyperthyroidism endometriosis pcos lupus fibromyalgia celiac coeliac hepatitis "
    "tuberculosis herpes chlamydia gonorrhea syphilis leukemia leukaemia lymphoma "
    "melanoma chemo alcoholism miscarriage infertility infertile ivf "
    "suicidal tourettes"
)
HEALTH_CONDITIONS_EN: tuple[str, ...] = (
    "has depression",
    "had depression",
    "with depression",
    "from depression",
    "for depression",
    "clinical depression",
    "postpartum depression",
    "severe depression",
    "her depression",
    "his depression",
    "my depression",
    "has hiv",
    "hiv-positive",
    "hiv positive",
    "asperger's",
    "alzheimer's",
    "parkinson's",
    "tourette's",
    "crohn's",
    "down syndrome",
    "down's syndrome",
    "multiple sclerosis",
    "cerebral palsy",
    "heart disease",
    "heart condition",
    "high blood pressure",
    "has cancer",
    "had cancer",
    "cancer patient",
    "cancer survivor",
    "cancer treatment",
    "breast cancer",
    "lung cancer",
    "colon cancer",
    "prostate cancer",
    "skin cancer",
    "ovarian cancer",
    "cervical cancer",
    "pancreatic cancer",
    "self-harm",
    "self harm",
    "suicide attempt",
    "radiation therapy",
)
MEDICINES = (  # separated by spaces
    "sertraline zoloft fluoxetine prozac escitalopram lexapro citalopram celexa paroxetine "
    "paxil venlafaxine effexor desvenlafaxine pristiq duloxetine cymbalta bupropion "
    "wellbutrin mirtazapine remeron trazodone vortioxetine trintellix quetiapine seroquel "
    "aripiprazole abilify olanzapine zyprexa risperidone risperdal clozapine haloperidol "
    "haldol lurasidone latuda lamotrigine lamictal valproate depakote gabapentin "
    "alprazolam xanax lorazepam ativan clonazepam klonopin diazepam valium buspirone "
    "hydroxyzine zolpidem ambien eszopiclone lunesta adderall vyvanse concerta ritalin "
    "methylphenidate strattera atomoxetine focalin dexedrine modafinil metformin insulin "
    "ozempic wegovy semaglutide mounjaro tirzepatide levothyroxine synthroid prednisone "
    "truvada descovy methadone suboxone buprenorphine naltrexone antabuse oxycodone "
    "hydrocodone vicodin percocet tramadol isotretinoin accutane spironolactone "
    "finasteride viagra cialis chantix varenicline"
)
MEDICAL_PHRASES_ZH = (  # separated by spaces
    "确诊 確診 诊断为 診斷為 诊断出 診斷出 抑郁症 抑鬱症 憂鬱症 焦虑症 焦慮症 双相情感 雙相情感 "
    "双相障碍 雙相障礙 躁郁症 躁鬱症 强迫症 強迫症 精神分裂 思觉失调 思覺失調 多动症 過動症 "
    "注意力缺陷 自闭症 自閉症 孤独症谱系 阿斯伯格 创伤后应激 創傷後壓力 进食障碍 進食障礙 "
    "厌食症 厭食症 暴食症 失眠症 人格障碍 人格障礙 惊恐障碍 驚恐障礙 惊恐发作 恐慌症 "
    "社交焦虑症 抑郁障碍 焦虑障碍 精神疾病 心理疾病 自残 自殘 自杀未遂 自殺未遂 "
    "癫痫 癲癇 糖尿病 哮喘 癌症 乳腺癌 肺癌 肝癌 胃癌 肠癌 腸癌 宫颈癌 子宮頸癌 白血病 "
    "淋巴瘤 艾滋病 愛滋病 乙肝 丙肝 肝炎 肺结核 肺結核 心脏病 心臟病 冠心病 高血压 高血壓 "
    "帕金森 阿尔茨海默 阿茲海默 老年痴呆 红斑狼疮 紅斑狼瘡 甲亢 甲减 性病 梅毒 淋病 "
    "尖锐湿疣 疱疹 不孕症 不育症 化疗 化療 放疗 放療 透析"
)
MEDICINES_ZH = (  # separated by spaces
    "抗抑郁药 抗抑鬱藥 抗焦虑药 抗焦慮藥 抗精神病药 舍曲林 氟西汀 帕罗西汀 艾司西酞普兰 "
    "文拉法辛 百忧解 百憂解 左洛复 来士普 度洛西汀 米氮平 喹硫平 奥氮平 阿立哌唑 利培酮 "
    "碳酸锂 丙戊酸 拉莫三嗪 阿普唑仑 劳拉西泮 氯硝西泮 地西泮 唑吡坦 思诺思 安眠药 安眠藥 "
    "利他林 专注达 專注達 择思达 胰岛素 胰島素 二甲双胍 降压药 降壓藥 降糖药"
)
