// The commands the window may call, one line each: the one list of them.
// `with_commands!(m)` hands the list to the macro `m`: lib.rs registers
// them (`collect_commands!`), and build.rs (which includes this file)
// makes each the permission `allow-<name>` and grants them all as the
// set `app-commands` that capabilities/main.json names.
macro_rules! with_commands {
    ($then:ident) => {
        $then! {
            list_targets,
            create_target,
            update_target,
            delete_target,
            test_target,
            list_scenarios,
            list_campaigns,
            get_campaign,
            create_campaign,
            finalize_campaign,
            campaign_report,
            compare_campaigns,
            draft_regression,
            save_scenario_file,
            list_runs,
            run_turns,
            add_review,
            list_reviews,
            blind_queue,
            submit_label,
            blind_run_queue,
            submit_run_label,
            judge_calibration,
            generate_analysis,
            next_period,
            list_sessions,
            session_messages,
            create_session,
            explore,
            search_runs,
            search_sessions,
            role_models_view,
            send_message,
            close_session,
            discard_session,
            export_campaign,
            save_export,
            get_settings,
            update_settings,
            patrol_status,
            pause_patrol,
            resume_patrol,
            app_info,
            whoami,
            connection,
            connect_server,
            disconnect_server,
            remote_call,
            remote_save,
        }
    };
}

macro_rules! command_names {
    ($($name:ident,)*) => {
        &[$(stringify!($name)),*]
    };
}

#[allow(dead_code)]
pub const COMMANDS: &[&str] = with_commands!(command_names);
