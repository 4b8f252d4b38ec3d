//! Customer service: order status, refunds, opening hours and address
//! changes.

use super::*;

pub(super) static ORDER_ID_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:ORD|SO|NO)[-#]?\d{3,}\b|#\d{4,}|\b\d{6,}\b"));

pub(super) fn order_id(text: &str) -> Option<String> {
    ORDER_ID_RE.find(text).map(|m| m.as_str().to_string())
}

pub(super) fn ask_order(lang: Lang, purpose_zh: &str, purpose_en: &str) -> String {
    match lang {
        Lang::Zh => format!("好的，我来帮您{purpose_zh}。请问您的订单号是多少？"),
        Lang::En => format!("Sure, I can help you {purpose_en}. What is your order number?"),
    }
}

/// The `order-guess` flaw: an answer about an order the user never named.
pub(super) fn guessed_order(lang: Lang) -> String {
    lang.pick(
        "您最近的订单已发货，正在运输途中，已为您处理。",
        "Your most recent order has shipped and is on its way; I have taken care of it.",
    )
}

pub(super) fn order_status(text: &str, lang: Lang) -> String {
    match order_id(text) {
        None => ask_order(lang, "查询订单", "check your order"),
        Some(id) => match lang {
            Lang::Zh => format!("订单 {id} 已发货，正在运输途中，预计 3 个工作日内送达。"),
            Lang::En => format!(
                "Order {id} has shipped and is on its way; it should arrive within 3 business days."
            ),
        },
    }
}

pub(super) fn refund(text: &str, lang: Lang) -> String {
    match order_id(text) {
        None => ask_order(lang, "办理退款", "with the refund"),
        Some(id) => match lang {
            Lang::Zh => format!(
                "已为订单 {id} 提交退款申请。我们收到退货后，退款将在 7 个工作日内原路退回。"
            ),
            Lang::En => format!(
                "I've opened a refund request for order {id}. Once we receive the returned item, the refund goes back to your original payment method within 7 business days."
            ),
        },
    }
}

pub(super) fn opening_hours(lang: Lang) -> String {
    lang.pick(
        "我们的客服时间是周一至周五 9:00-18:00，周末和法定节假日休息。",
        "Our customer service is open Monday to Friday, 9:00-18:00, and closed on weekends and public holidays.",
    )
}

pub(super) static NEW_ADDRESS_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:改成|改为|换成|新地址(?:是|为)?\s*[:：]?|new address(?: is)?\s*[:：]?|\baddress\b[^\n]*?\bto\b\s*[:：]?)\s*(.+?)\s*[。.]?$",
    )
});

pub(super) fn change_address(thread: &[&str], lang: Lang) -> String {
    let text = thread.join("\n");
    let id = order_id(&text);
    let address = thread
        .iter()
        .rev()
        .find_map(|m| NEW_ADDRESS_RE.captures(m).map(|c| c[1].to_string()))
        .or_else(|| {
            // A bare answer to "what is the new address?".
            let last = thread.last().copied().unwrap_or_default().trim();
            (thread.len() > 1 && detect(last).is_none() && order_id(last).is_none())
                .then(|| last.to_string())
        })
        .filter(|a| !a.is_empty() && order_id(a).as_deref() != Some(a.as_str()));
    match (id, address) {
        (None, _) => ask_order(lang, "修改收货地址", "change the delivery address"),
        (Some(_), None) => lang.pick(
            "好的。请问新的收货地址是什么？",
            "Okay. What is the new delivery address?",
        ),
        (Some(id), Some(addr)) => match lang {
            Lang::Zh => format!("已将订单 {id} 的收货地址修改为：{addr}。"),
            Lang::En => format!("Done: the delivery address of order {id} is now {addr}."),
        },
    }
}
