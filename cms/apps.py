"""Wagtail pages of the site: about, contact (a form), privacy, developers."""

from django.apps import AppConfig


class CmsConfig(AppConfig):
    name = "cms"
    verbose_name = "Site pages"
    default_auto_field = "django.db.models.BigAutoField"
