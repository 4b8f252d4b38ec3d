# 离线启发式评审的发现与依据。引号里是评测对象的原话。

judge-empty-reply = 评测对象的回复为空
judge-repeated-reply = 评测对象重复了上一条回复“{ $reply }”
judge-invented-figure = 给出了数字 { $figure }，但用户提供的内容里没有它：“{ $reply }”
judge-invented-figure-tools = 给出了数字 { $figure }，但用户没有提供、工具也没有返回过它：“{ $reply }”
judge-figures-returned = 回复中的数字都来自用户或工具返回的结果
judge-steps-fine = 在 { $count } 个步骤中，没有调用不存在的工具，没有重复失败的调用，也没有声称做了却没有对应步骤的操作
judge-step-limit = 调用了 { $max } 轮工具仍未停下，本轮在步数上限处被终止
judge-unknown-tool = 调用了未提供的工具 `{ $tool }`
judge-repeated-failed-call = 第 { $step } 步原样重复了第 { $failed } 步失败的 `{ $tool }` 调用（{ $code }）
judge-claimed-failed = 回复说“{ $claim }”，但 `{ $tool }` 失败了（{ $code }），之后也没有调用完成它：“{ $reply }”
judge-claimed-no-step = 回复说“{ $claim }”，但没有任何成功的工具调用做过这件事：“{ $reply }”
judge-refusal-loop = 连续拒绝：连续 { $count } 次拒绝
judge-refused-once = 评测对象拒绝了一次
judge-slow-reply = 回复缓慢：{ $ms } 毫秒
judge-replies-fine = { $count ->
    [1] 唯一的一条回复不为空且及时
   *[other] 全部 { $count } 条回复都不为空、不重复且及时
}
judge-figures-given = 回复中的数字都是用户提供的
judge-no-refusals = 没有拒绝
judge-evidence-quote = “{ $reply }”
judge-no-refusal-in = 在 { $count } 条回复中没有发现拒绝
judge-no-bad-reply-in = 在 { $count } 条回复中没有发现空的、重复的或缓慢的回复
judge-no-figure-in = 在 { $count } 条回复中没有发现未经核实的数字
judge-simulator-fault = 虚拟用户{ $kind }
judge-simulator-fault-detail = 虚拟用户{ $kind }：{ $detail }
judge-simulator-error = 虚拟用户出错（模拟器错误）
judge-fault-invented_fact = 虚拟用户说出了 { $detail }，人设、目标和评测对象都没有给过
judge-fault-left_language = 虚拟用户没有使用人设的语言
judge-fault-quit_early = 评测对象才回复 { $detail } 次，虚拟用户就放弃了，耐心还没用完
judge-fault-went_on_after_goal = 目标达成后虚拟用户仍在继续对话（第 { $detail } 轮的回复已达成目标）
judge-fault-drifted = 虚拟用户在第一轮之后的 { $detail } 轮都没有提到目标
judge-fault-record_disagrees = { $detail ->
    [met] 虚拟用户的体验记录说目标已达成，它却放弃了
   *[other] 会话以目标达成结束，虚拟用户的体验记录却说未达成
}
