# 引擎的错误：每条有说明和建议。

error-internal = 平台内部出错
error-internal-suggestion = 请重试；如果仍然出错，请查看日志。

error-thing-campaign = 活动
error-thing-run = 评测运行
error-thing-session = 探索会话
error-thing-target = 评测对象
error-thing-key = 密钥
error-thing-conversation = 导入的对话
error-not-found = { $thing } { $id } 不存在
error-not-found-suggestion = 请先列出现有的{ $thing }，再使用其中一个的 id。

error-unknown-language = 不支持的语言“{ $lang }”
error-unknown-language-suggestion = 请使用 `lang=zh` 或 `lang=en`。

error-write-file = 无法写入 { $path }：{ $detail }
error-write-file-suggestion = 请选择一个你有写入权限的文件夹。
error-remote-file = { $file } 无效：{ $detail }
error-remote-file-suggestion = 请在“设置”中重新连接团队服务器。
error-remote-key-empty = 团队服务器的 API 密钥为空
error-remote-key-empty-suggestion = 请粘贴服务器管理员给你的密钥（`agenteval keys create`）。
error-remote-key-unknown = { $url } 上的团队服务器不认识这个密钥（或它已被吊销）
error-remote-key-unknown-suggestion = 请向服务器管理员核对密钥（`agenteval keys list`）。
error-remote-not-agenteval = { $url } 不是本应用可用的 AgentEval 服务器：`/api/whoami` 返回了 HTTP { $status }
error-remote-not-agenteval-suggestion = 请检查地址（服务器的地址，不带 `/api`），并确认服务器与本应用的版本相同。
error-remote-answer = { $url } 有应答，但不是 AgentEval 服务器
error-remote-answer-suggestion = 请检查地址：应为 `agenteval serve` 监听的地址。
error-remote-url = 服务器地址“{ $url }”无效：{ $detail }
error-remote-url-scheme = 服务器地址“{ $url }”必须以 `http://` 或 `https://` 开头并带有主机名
error-remote-url-suggestion = 请填写 `agenteval serve` 监听的地址，例如 `http://10.0.0.5:8787` 或 `https://agenteval.example.com`。
error-remote-url-extra = 服务器地址“{ $url }”不能带查询参数、片段或账号密码
error-remote-url-extra-suggestion = 只填地址本身；密钥填在单独的字段里。
error-remote-not-connected = 本应用没有连接团队服务器
error-remote-not-connected-suggestion = 请在“设置”中连接一个，或重新加载窗口以使用本机的数据库。
error-remote-unreachable = 无法连接 { $url } 上的团队服务器：{ $detail }
error-remote-unreachable-suggestion = 请检查地址和网络，并确认那里正在运行 `agenteval serve`；或在“设置”中切回本机的数据库。
error-remote-status = 团队服务器返回了 HTTP { $status }
error-remote-status-suggestion = 请重试；如果仍然出错，请查看服务器的日志。

## 比较两个活动
error-compare-same = 活动不能和自己比较
error-compare-same-suggestion = 请选择同一评测对象的另一个活动作为基准。
error-compare-other-target = “{ $current }”和“{ $baseline }”评测的是不同的对象；只有同一评测对象的活动才能比较
error-compare-other-target-suggestion = 请在同一评测对象的活动中选择基准。

## 由发现起草回归场景
error-regression-no-finding = 该会话没有落在某一轮上的评审发现，无法起草回归场景
error-regression-no-finding-suggestion = 请指明会话中的某一轮（`turn=N`）由你亲自标记其回复，或选择评审判为“差”的会话；发现列在会话抽屉和报告的评审发现中。
error-regression-turn = 第 { $turn } 轮超出了会话的范围：会话只有 { $turns } 个用户轮次

## 保存到用户自己的场景包
error-pack-file-name = “{ $pack }/{ $file }”不是可以保存的场景包和文件名
error-pack-file-name-suggestion = 场景包名只用字母、数字、“_”、“-”或“.”（例如 `regressions`），文件名同样，并以 `.yaml` 结尾。
error-pack-file-invalid = 场景包文件无法加载：{ $errors }
error-pack-file-line = 场景包文件无法加载：{ $file } 第 { $line } 行，{ $problem }{ $more }
error-pack-file-more = （另有 { $count } 处问题）
error-pack-file-invalid-suggestion = 请修改所列的行（格式见 `scenarios/README.md`）后再保存；没有写入任何内容。
error-pack-file-duplicate = 场景 ID“{ $id }”已被 { $other } 使用
error-pack-file-duplicate-suggestion = 请为场景换一个 ID，或改为编辑那个文件。
error-pack-file-too-long = 场景包文件有 { $chars } 个字符；通过 API 最多保存 { $max } 个
error-pack-file-too-long-suggestion = 请拆成几个文件，或直接放进场景包文件夹。
error-mcp-missing-argument = 缺少参数 `{ $field }`
error-mcp-bad-arguments = 无法读取参数：{ $detail }
error-mcp-arguments-suggestion = 请按工具的输入格式提供所有必填参数，且类型与其一致。

error-reason-target_error = 评测对象出错
error-reason-interrupted = 被中断
error-reason-window_ended = 窗口已结束
error-reason-internal_error = 内部错误
error-reason-workspace_error = 工作区出错
error-reason-storage_error = 存储错误
error-reason-target_unavailable = 评测对象不可用
error-reason-timeout = 超时
error-reason-error = 错误
run-error = { $kind }：{ $detail }
workspace-copy-failed = 无法为这次运行复制工作区：{ $cause }
workspace-missing = 场景的工作区文件夹 `{ $folder }` 已不存在
error-campaign-tool-env-missing = 没有已加载的场景的 id 是 `{ $id }`，无法把它的工具提供给探索会话
error-campaign-tool-env-no-tools = 场景 `{ $id }` 没有平台能代为执行的工具（既没有声明 `responses`，也没有 `workspace`）
error-campaign-tool-env-suggestion = 请选择一个工具声明了返回结果或带工作区的场景，例如办公场景包里的场景。
error-database-down = 暂时无法连接数据库，本次请求没有做任何修改
error-database-down-suggestion = 请过几秒后重新发送同一请求，服务器会自动重新连接；如果持续出现，请检查数据库是否在运行。
error-database-full = 数据库所在的磁盘已满，本次请求没有做任何修改
error-database-full-suggestion = 请清理数据目录所在磁盘的空间，然后重新发送同一请求；之前保存的数据都在。
error-database-read-only = 数据库是只读的（已保存的数据仍可查看），本次请求没有做任何修改
error-database-read-only-suggestion = 请让运行 AgentEval 的用户可以写入数据目录和其中的数据库文件，然后重新启动 AgentEval 并重新发送同一请求；之前保存的数据都在。
error-data-folder-read-only-empty = 数据目录 { $folder } 是只读的，其中还没有数据库
error-data-folder-read-only-empty-suggestion = 请选择当前用户可以写入的数据目录（`--data-dir` 或 `AGENTEVAL_DATA_DIR`），或让该目录可写。
error-data-folder-read-only-outdated = 数据目录 { $folder } 是只读的，而其中的数据库由较早版本的 AgentEval 写入：需要升级一次，升级要写入该目录
error-data-folder-read-only-outdated-suggestion = 请让该目录可写，并启动一次 AgentEval 完成升级；之后可以再设为只读。
