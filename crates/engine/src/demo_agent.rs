//! The built-in demo agent. (Implementation in progress.)

use crate::channel::{ChatMessage, ToolCall, ToolSpec, Usage};

#[derive(Debug, Default)]
pub struct DemoAgent;

#[derive(Debug, Clone)]
pub struct DemoReply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
}

impl DemoAgent {
    pub fn new() -> Self {
        Self
    }

    pub fn respond(&self, messages: &[ChatMessage], _tools: &[ToolSpec]) -> DemoReply {
        let last = messages
            .last()
            .map(|m| m.content.as_str())
            .unwrap_or_default();
        DemoReply {
            content: format!("You said: {last}"),
            tool_calls: Vec::new(),
            usage: Usage::default(),
        }
    }
}
