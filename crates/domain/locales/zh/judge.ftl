# 离线启发式评审的发现与依据。引号里是评测对象的原话。

judge-empty-reply = 评测对象的回复为空
judge-repeated-reply = 评测对象重复了上一条回复“{ $reply }”
judge-invented-figure = 给出了数字 { $figure }，但用户提供的内容里没有它：“{ $reply }”
judge-refusal-loop = 连续拒绝：连续 { $count } 次拒绝
judge-refused-once = 评测对象拒绝了一次
judge-slow-reply = 回复缓慢：{ $ms } 毫秒
judge-replies-fine = 全部 { $count } 条回复都不为空、不重复且及时
judge-figures-given = 回复中的数字都是用户提供的
judge-no-refusals = 没有拒绝
judge-evidence-quote = “{ $reply }”
judge-no-refusal-in = 在 { $count } 条回复中没有发现拒绝
judge-no-bad-reply-in = 在 { $count } 条回复中没有发现空的、重复的或缓慢的回复
judge-no-figure-in = 在 { $count } 条回复中没有发现未经核实的数字
judge-simulator-fault = 虚拟用户{ $kind }
judge-simulator-fault-detail = 虚拟用户{ $kind }：{ $detail }
judge-simulator-error = 虚拟用户出错（模拟器错误）
