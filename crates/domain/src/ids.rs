//! The ids operations take, one type each, so that a session's id cannot
//! be passed where a campaign's is expected; and ids as stored: text that
//! must read back as a UUID.
//!
//! Each is a UUID (v7 when the platform makes it) and reads and writes as
//! its text everywhere: JSON, the OpenAPI document, the generated
//! TypeScript types (`CampaignId = string`) and the store's columns.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Default, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            specta::Type, utoipa::ToSchema,
        )]
        #[serde(transparent)]
        #[schema(value_type = String, format = Uuid)]
        pub struct $name(pub Uuid);

        impl $name {
            /// The UUID under the id.
            pub fn uuid(self) -> Uuid {
                self.0
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        impl From<$name> for Uuid {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    };
}

id!(
    /// A campaign's id.
    CampaignId
);
id!(
    /// An exploration session's id.
    SessionId
);
id!(
    /// A fixed run's id.
    RunId
);
id!(
    /// A target's id.
    TargetId
);

/// An id read back from storage, as the type the caller expects; one that
/// does not parse is an internal error (the store wrote it), never the
/// user's.
pub fn parse_id<T: From<Uuid>>(s: &str) -> Result<T> {
    Uuid::parse_str(s).map(T::from).map_err(Error::internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_reads_and_writes_as_its_uuid_text() {
        let id = CampaignId(Uuid::from_u128(0x0193_0000_0000_7000_8000_0000_0000_0001));
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"01930000-0000-7000-8000-000000000001\"");
        assert_eq!(serde_json::from_str::<CampaignId>(&json).unwrap(), id);
        assert_eq!(id.to_string().parse::<CampaignId>().unwrap(), id);
        let stored: SessionId = parse_id(&id.to_string()).unwrap();
        assert_eq!(stored.uuid(), id.uuid());
        assert!(parse_id::<RunId>("not a uuid").is_err());
    }
}
