# 引擎的错误：每条有说明和建议。

error-internal = 平台内部出错
error-internal-suggestion = 请重试；如果仍然出错，请查看日志。

error-thing-campaign = 活动
error-thing-run = 评测运行
error-thing-session = 探索会话
error-thing-target = 评测对象
error-thing-key = 密钥
error-not-found = { $thing } { $id } 不存在
error-not-found-suggestion = 请先列出现有的{ $thing }，再使用其中一个的 id。

error-unknown-language = 不支持的语言“{ $lang }”
error-unknown-language-suggestion = 请使用 `lang=zh` 或 `lang=en`。
